# expect: wrong_answer
"""Probe: the same exchange with isend: messages are matched by tag, whatever the order."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank = dist.get_rank()
    if rank == 0:
        reqs = [dist.isend(t, 1, tag=1), dist.isend(t * 4, 1, tag=2)]
        for req in reqs:
            req.wait()
    elif rank == 1:
        second, first = torch.empty_like(t), torch.empty_like(t)
        dist.recv(second, 0, tag=2)
        dist.recv(first, 0, tag=1)
        t += second - 2 * first
