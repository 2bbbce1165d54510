# expect: deadlock
"""Probe: rank 0 waits in recv from rank 1 while the others wait in all_reduce."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    if dist.get_rank() == 0:
        dist.recv(torch.empty_like(t), 1)
    dist.all_reduce(t)
