# expect: deadlock
# Mistake: a rank whose shard is only padding skips the all-gather ("nothing to contribute"),
# but an all-gather needs every rank: the others wait for it for ever.
import torch
import torch.distributed as dist


def all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    if rank * size >= t.numel():
        return
    dist.all_gather_into_tensor(padded, shard)
    t.copy_(padded[: t.numel()])
