# expect: deadlock
"""Probe: rank 0 sends tag 1 then tag 2, rank 1 receives tag 2 first: the blocking send of tag
1 waits for a receive of tag 1 that never comes."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank = dist.get_rank()
    if rank == 0:
        dist.send(t, 1, tag=1)
        dist.send(t * 2, 1, tag=2)
    elif rank == 1:
        second, first = torch.empty_like(t), torch.empty_like(t)
        dist.recv(second, 0, tag=2)
        dist.recv(first, 0, tag=1)
        t += second - first
