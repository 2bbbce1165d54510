# expect: time_limit
# Mistake: walks left around the ring with % n but compares with rank - k (no % n), which can be negative: rank 0 spins forever.
import torch
import torch.distributed as dist


def left_of(i, k, n):
    """The chunk k places to the left of chunk i."""
    j = i
    while j != i - k:  # bug: j stays in 0..n-1, i - k does not
        j = (j - 1) % n
    return j


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):  # reduce-scatter
        send_idx, recv_idx = left_of(rank, step, n), left_of(rank, step + 1, n)
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
    for step in range(n - 1):  # all-gather
        send_idx, recv_idx = left_of((rank + 1) % n, step, n), left_of(rank, step, n)
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
