# expect: over_budget
# Mistake: correct, but every rank sends its whole x to every other rank and sums locally:
# (n-1)*n*m elements instead of (n-1)*m.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    others = [torch.empty_like(x) for _ in range(n)]
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs += [dist.isend(x, peer), dist.irecv(others[peer], peer)]
    for req in reqs:
        req.wait()
    total = x.clone()
    for peer in range(n):
        if peer != rank:
            total += others[peer]
    return total.chunk(n)[rank].clone()
