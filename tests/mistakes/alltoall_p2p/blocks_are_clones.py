# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the direct exchange's; it still holds 0, as the tensor was made
# names: written into a copy (a clone, a new tensor)
# names_zh: 仍是创建时的 0
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
