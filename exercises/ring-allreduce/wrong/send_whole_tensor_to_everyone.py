# expect: over_budget
# Mistake: correct, but every rank sends its whole tensor to every other rank: (n-1)*N elements, not 2(n-1)/n*N.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    others = [torch.empty_like(t) for _ in range(n)]
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs.append(dist.isend(t, peer))
            reqs.append(dist.irecv(others[peer], peer))
    for req in reqs:
        req.wait()
    for peer in range(n):
        if peer != rank:
            t += others[peer]
