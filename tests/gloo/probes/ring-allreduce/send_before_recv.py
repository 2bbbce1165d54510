# expect: deadlock
"""Probe: every rank blocks in send before it receives: gloo's send is a rendezvous, so this
deadlocks at any size."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    buf = torch.empty_like(t)
    dist.send(t, (rank + 1) % n)
    dist.recv(buf, (rank - 1) % n)
    t += buf
