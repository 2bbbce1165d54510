"""Reference: recursive doubling, folding the ranks beyond the largest power of two."""

import torch
import torch.distributed as dist


def all_reduce(t):
    """Sum ``t`` over all ranks, in place, in log2(n) exchanges of the whole tensor."""
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)  # the largest power of two <= n
    buf = torch.empty_like(t)
    if rank >= p:  # an extra rank: hand t to rank - p, get the sum back
        dist.send(t, rank - p)
        dist.recv(t, rank - p)
        return
    if rank + p < n:  # fold the extra rank's tensor in
        dist.recv(buf, rank + p)
        t += buf
    mask = 1
    while mask < p:  # exchange with the partner at distance mask; both add the other's sum
        peer = rank ^ mask
        reqs = [dist.isend(t, peer), dist.irecv(buf, peer)]
        for req in reqs:
            req.wait()
        t += buf
        mask <<= 1
    if rank + p < n:
        dist.send(t, rank + p)
