# expect: too_slow
# Mistake: every block travels in a chain 0 -> 1 -> ... -> n-1 -> 0, one block at a time, each
# hop waiting for the one before: within the byte bound, but (n-1)^2 latencies, not n-1.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for owner in range(n):  # pass block `owner` around the ring, hop by hop
        for hop in range(n - 1):
            holder = (owner + hop) % n
            if rank == holder:
                dist.send(blocks[owner], right)
            elif rank == (holder + 1) % n:
                dist.recv(blocks[owner], left)
    return out
