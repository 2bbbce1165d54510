# attack: spin the CPU forever
# expect: time_limit
def ring_all_reduce(t):
    x = 0
    while True:
        x += 1
