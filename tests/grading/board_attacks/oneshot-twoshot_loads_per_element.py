# exercise: oneshot-twoshot
# expect: over_budget|too_slow
# trick: load each peer's tensor one element at a time, hoping many small loads overlap for
#        free; the same bytes in n·N loads instead of n − 1.
import torch


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    parts = {rank: t.clone()}
    for k in range(1, n):
        peer = (rank + k) % n
        parts[peer] = torch.cat([symm.read(peer, i, 1) for i in range(size)])
    total = parts[0]
    for p in range(1, n):
        total += parts[p]
    t.copy_(total)
