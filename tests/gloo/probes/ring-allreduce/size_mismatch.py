# expect: runtime_error
"""Probe: rank 1 receives into a tensor one element too small."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank = dist.get_rank()
    if rank == 0:
        dist.send(t, 1)
    elif rank == 1:
        dist.recv(torch.empty(t.numel() - 1, dtype=t.dtype), 0)
