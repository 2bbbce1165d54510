# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the direct exchange's; a 0 never overwritten; into a copy
# names_zh: 每条消息都与直接交换逐步一致
# weak: the result's blocks are zeros, not its own input: the clone is not recognised as such
# Receives into clones of the result's blocks, so the result itself is never written.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.zeros_like(x)
    mine, theirs = x.chunk(n), [b.clone() for b in out.chunk(n)]
    theirs[rank].copy_(mine[rank])
    reqs = []
    for shift in range(1, n):
        to, frm = (rank + shift) % n, (rank - shift) % n
        reqs += [dist.isend(mine[to], to), dist.irecv(theirs[frm], frm)]
    for req in reqs:
        req.wait()
    return out
