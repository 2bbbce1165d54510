# attack: grow memory step by step (64 MiB at a time) and keep every byte
# expect: memory_limit|time_limit
def ring_all_reduce(t):
    hog = []
    while True:
        hog.append(b"x" * (64 << 20))
