# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the direct exchange's
# names: block 1 should be block 0 of rank 1's x, but element 0 of it is element 0 of block 0 of rank 3's x
# names_zh: 第 1 块应为 rank 1 的 x 的第 0 块
# Receives rank frm's block into block `to` of the result.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(x)
    mine, theirs = x.chunk(n), out.chunk(n)
    theirs[rank].copy_(mine[rank])
    reqs = []
    for shift in range(1, n):
        to, frm = (rank + shift) % n, (rank - shift) % n
        reqs += [dist.isend(mine[to], to), dist.irecv(theirs[to], frm)]
    for req in reqs:
        req.wait()
    return out
