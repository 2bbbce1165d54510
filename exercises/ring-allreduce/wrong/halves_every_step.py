# expect: too_slow
"""The ring, correct and within the byte bound, but each step sends its chunk as two halves, one
after the other: 4(n−1) latencies instead of 2(n−1), too slow for small messages."""

import torch
import torch.distributed as dist


def _pass(send, recv, right, left):
    """Send ``send`` right and receive ``recv`` from the left, in two halves, one at a time."""
    for part_out, part_in in zip(send.chunk(2), recv.chunk(2)):
        reqs = [dist.isend(part_out.contiguous(), right), dist.irecv(part_in, left)]
        for req in reqs:
            req.wait()


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        _pass(chunks[send_idx], buf, right, left)
        chunks[recv_idx] += buf
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        _pass(chunks[send_idx], buf, right, left)
        chunks[recv_idx].copy_(buf)
