# expect: over_budget
# Mistake: recursive doubling of the whole tensor: log2(n) steps, but log2(n)*S bytes per rank
# where halving and doubling send 2(n-1)/n*S.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    buf = torch.empty_like(t)
    mask = 1
    while mask < n:
        reqs = [dist.isend(t, rank ^ mask), dist.irecv(buf, rank ^ mask)]
        for req in reqs:
            req.wait()
        t += buf
        mask <<= 1
