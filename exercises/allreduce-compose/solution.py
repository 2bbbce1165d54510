"""Reference: pad to n equal shards, reduce-scatter them, all-gather the sums, copy back."""

import torch
import torch.distributed as dist


def all_reduce(t):
    """Sum ``t`` over all ranks, in place."""
    n = dist.get_world_size()
    size = -(-t.numel() // n)  # ceil(N / n): each rank's shard
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)  # shard r of the sum
    dist.all_gather_into_tensor(padded, shard)  # every shard, in rank order
    t.copy_(padded[: t.numel()])
