# expect: runtime_error
# Mistake: no folding: with n not a power of two, rank ^ mask can name a rank that does not exist.
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
