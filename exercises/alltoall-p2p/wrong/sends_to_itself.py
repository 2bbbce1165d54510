# expect: runtime_error
# Mistake: loops over every rank, itself included: a rank cannot send to itself (keep the own
# block with a local copy).
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(x)
    mine, theirs = x.chunk(n), out.chunk(n)
    reqs = []
    for peer in range(n):
        reqs += [dist.isend(mine[peer], peer), dist.irecv(theirs[peer], peer)]
    for req in reqs:
        req.wait()
    return out
