# expect: wrong_answer
"""Probe: rank 0 receives from any source, in whatever order the others arrive, and says who
sent each message; then sends the sum back to everyone, who add one."""

import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        senders = []
        for _ in range(n - 1):
            buf = torch.empty_like(t)
            senders.append(dist.recv(buf))
            t += buf
        assert sorted(senders) == list(range(1, n)), senders
        for peer in range(1, n):
            dist.send(t, peer)
    else:
        dist.send(t, 0)
        dist.recv(t, 0)
    t += 1
