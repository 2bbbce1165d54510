# expect: deadlock
# Mistake: every rank first sends with a blocking send: a send completes only when its receive
# is posted, and every rank is still sending.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        dist.send(blocks[send_idx], right)
        dist.recv(blocks[recv_idx], left)
    return out
