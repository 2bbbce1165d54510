# expect: deadlock
# Mistake: both partners of an exchange do a blocking send first; a send completes only when its
# receive is posted, so each pair waits on itself.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)
    buf = torch.empty_like(t)
    if rank >= p:
        dist.send(t, rank - p)
        dist.recv(t, rank - p)
        return
    if rank + p < n:
        dist.recv(buf, rank + p)
        t += buf
    mask = 1
    while mask < p:
        dist.send(t, rank ^ mask)
        dist.recv(buf, rank ^ mask)
        t += buf
        mask <<= 1
    if rank + p < n:
        dist.send(t, rank + p)
