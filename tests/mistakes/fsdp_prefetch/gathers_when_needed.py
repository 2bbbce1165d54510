# expect: too_slow
# gloo: right on sample-4-ranks-4-layers
# names: line 16: rank 0's all_gather
# names: Prefetch: start layer l + 1's all_gather_into_tensor(...
# names: async_op=True) before you call layer_fn on layer l
# names_zh: 预取
# Gathers each layer right before using it and waits: nothing prefetched.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    for shard in shards:
        full = torch.empty(n * shard.numel(), dtype=shard.dtype)
        dist.all_gather_into_tensor(full, shard)
        x = layer_fn(full, x)
    return x
