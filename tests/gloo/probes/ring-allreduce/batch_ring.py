# expect: accepted
"""Probe: the reference ring with each step's send and receive in one batch_isend_irecv."""

import torch
import torch.distributed as dist


def _step(chunks, send_idx, recv_idx, right, left):
    buf = torch.empty_like(chunks[recv_idx])
    ops = [dist.P2POp(dist.isend, chunks[send_idx].contiguous(), right),
           dist.P2POp(dist.irecv, buf, left)]
    for req in dist.batch_isend_irecv(ops):
        req.wait()
    return buf


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        chunks[recv_idx] += _step(chunks, send_idx, recv_idx, right, left)
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        chunks[recv_idx].copy_(_step(chunks, send_idx, recv_idx, right, left))
