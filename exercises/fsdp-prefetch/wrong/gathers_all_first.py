# expect: memory_limit
# Mistake: prefetches everything. All L all-gathers are posted up front: as fast as prefetching
# one layer ahead, but every layer's full parameters exist at once, which is what sharding the
# parameters was meant to avoid.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    gathered = []
    for shard in shards:
        full = torch.empty(n * shard.numel(), dtype=shard.dtype)
        gathered.append((full, dist.all_gather_into_tensor(full, shard, async_op=True)))
    for full, work in gathered:
        work.wait()
        x = layer_fn(full, x)
    return x
