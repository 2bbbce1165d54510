# expect: wrong_answer
# Mistake: folds the extra ranks in but never sends them the sum: right whenever n is a power of
# two, wrong on the extra ranks otherwise.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)
    buf = torch.empty_like(t)
    if rank >= p:
        dist.send(t, rank - p)
        return
    if rank + p < n:
        dist.recv(buf, rank + p)
        t += buf
    mask = 1
    while mask < p:
        reqs = [dist.isend(t, rank ^ mask), dist.irecv(buf, rank ^ mask)]
        for req in reqs:
            req.wait()
        t += buf
        mask <<= 1
