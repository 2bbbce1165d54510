# expect: wrong_answer
# gloo: wrong on sample-4-ranks-4-layers
# names: rank 0 makes no collective call, where the reference calls all_gather_into_tensor
# names_zh: rank 0 没有任何集合通信调用
# Builds the full parameters from its own shard n times instead of gathering.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    for shard in shards:
        full = torch.cat([shard] * n)
        x = layer_fn(full, x)
    return x
