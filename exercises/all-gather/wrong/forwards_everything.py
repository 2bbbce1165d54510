# expect: over_budget
# Mistake: correct, but at every step each rank sends the whole output gathered so far:
# n*m elements a step instead of m.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros(n * x.numel(), dtype=x.dtype)
    out.chunk(n)[rank].copy_(x)
    for _ in range(n - 1):
        buf = torch.empty_like(out)
        reqs = [dist.isend(out.clone(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        out = torch.where(out == 0, buf, out)
    return out
