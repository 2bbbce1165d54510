# expect: over_budget
# Mistake: correct, but sends all of x to every peer, which picks its block: (n-1)*n*k elements
# instead of (n-1)*k.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    k = x.numel() // n
    got = [x if p == rank else torch.empty_like(x) for p in range(n)]
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs += [dist.isend(x, peer), dist.irecv(got[peer], peer)]
    for req in reqs:
        req.wait()
    return torch.cat([g[rank * k:(rank + 1) * k] for g in got])
