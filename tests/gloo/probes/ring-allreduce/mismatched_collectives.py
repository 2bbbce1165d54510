# expect: deadlock
"""Probe: rank 0 calls all_reduce while the others call broadcast: gloo hangs."""

import torch.distributed as dist


def ring_all_reduce(t):
    if dist.get_rank() == 0:
        dist.all_reduce(t)
    else:
        dist.broadcast(t, 0)
