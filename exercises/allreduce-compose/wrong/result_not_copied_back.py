# expect: wrong_answer
# Mistake: gathers the sum into the padded copy and returns it; t itself is never updated.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    dist.all_gather_into_tensor(padded, shard)
    return padded[: t.numel()]
