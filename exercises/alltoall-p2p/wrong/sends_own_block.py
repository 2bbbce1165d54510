# expect: wrong_answer
# Mistake: sends block `rank` (its own block) to every peer instead of block `peer`.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(x)
    mine, theirs = x.chunk(n), out.chunk(n)
    theirs[rank].copy_(mine[rank])
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs += [dist.isend(mine[rank], peer), dist.irecv(theirs[peer], peer)]
    for req in reqs:
        req.wait()
    return out
