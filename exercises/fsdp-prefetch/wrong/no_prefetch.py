# expect: too_slow
# Mistake: no prefetch. Each layer's parameters are gathered only when the layer is reached, so
# every layer waits for its all-gather: L gathers and L computes one after another.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    for shard in shards:
        full = torch.empty(n * shard.numel(), dtype=shard.dtype)
        dist.all_gather_into_tensor(full, shard)
        x = layer_fn(full, x)
    return x
