# expect: forbidden_primitive
# Mistake: assembles each layer by broadcasting every rank's shard; only all_gather is allowed.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    for shard in shards:
        parts = [shard.clone() for _ in range(n)]
        for src in range(n):
            dist.broadcast(parts[src], src)
        x = layer_fn(torch.cat(parts), x)
    return x
