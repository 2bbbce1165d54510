# expect: too_slow
# gloo: right on sample-4-ranks
# names: Its critical path is
# names_zh: 关键路径
# Loads every element of every peer's tensor on its own: the same bytes as one-shot, but each
# load holds the ports for at least the gap g, n - 1 loads of N elements become (n - 1)·N.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    total = t.clone()
    for k in range(1, n):
        for i in range(size):
            total[i] += symm.read((rank + k) % n, i, 1)[0]
    t.copy_(total)
