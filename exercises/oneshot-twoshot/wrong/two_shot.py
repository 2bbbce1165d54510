# expect: too_slow
# Mistake: two-shot at 32 KiB: a reduce-scatter by loads (chunk `rank` of every buffer), an
# all-gather by stores (the summed chunk into every buffer), a barrier before each. Fewer bytes
# (2(n-1)/n·S), but the second barrier costs more than one-shot's extra bytes save here.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    lo, hi = rank * size // n, (rank + 1) * size // n
    mine = t[lo:hi].clone()
    for k in range(1, n):  # from the next rank on: no two ranks load from one peer at once
        mine += symm.read((rank + k) % n, lo, hi - lo)
    for k in range(n):
        symm.write((rank + k) % n, mine, lo)  # only rank `rank` touches chunk `rank` of any buffer
    symm.barrier()
    t.copy_(symm.read(rank, 0, size))
