# expect: wrong_answer
# Mistake: two-shot without its second barrier: a rank reads the summed chunks out of its own
# buffer while the peers may still be storing them there.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    lo, hi = rank * size // n, (rank + 1) * size // n
    mine = t[lo:hi].clone()
    for k in range(1, n):  # from the next rank on: no two ranks load from one peer at once
        mine += symm.read((rank + k) % n, lo, hi - lo)
    for k in range(n):
        symm.write((rank + k) % n, mine, lo)
    t.copy_(symm.read(rank, 0, size))
