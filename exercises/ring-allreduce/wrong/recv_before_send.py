# expect: deadlock
# Mistake: every rank does a blocking recv from the left before its send, so all ranks wait and nobody sends.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):  # reduce-scatter
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        dist.recv(buf, left)
        dist.send(chunks[send_idx].contiguous(), right)
        chunks[recv_idx] += buf
    for step in range(n - 1):  # all-gather
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        dist.recv(buf, left)
        dist.send(chunks[send_idx].contiguous(), right)
        chunks[recv_idx].copy_(buf)
