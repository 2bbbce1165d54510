# expect: over_budget
# Mistake: one step, every rank sends t to every other rank: fast, correct, but (n-1)*S bytes
# per rank instead of ceil(log2 n)*S.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    others = [torch.empty_like(t) for _ in range(n)]
    reqs = []
    for peer in range(n):
        if peer != rank:
            reqs += [dist.isend(t, peer), dist.irecv(others[peer], peer)]
    for req in reqs:
        req.wait()
    for peer in range(n):
        if peer != rank:
            t += others[peer]
