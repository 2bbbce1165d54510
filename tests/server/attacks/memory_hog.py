# attack: allocate and touch memory until something gives
# expect: memory_limit|runtime_error
def ring_all_reduce(t):
    hog = []
    while True:
        hog.append(b"x" * (64 << 20))
