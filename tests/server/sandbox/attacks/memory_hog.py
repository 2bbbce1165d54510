# attack: allocate and touch far more memory than any sandbox may have (4 GiB in one go)
# expect: memory_limit
def ring_all_reduce(t):
    hog = b"x" * (4 << 30)
    return len(hog)
