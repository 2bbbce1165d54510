# exercise: fsdp-prefetch
# expect: runtime_error
# trick: call layer_fn on zero parameters (which leaves x as it is) once per layer before any
#   all-gather, so the judge's count of gathered layers goes below zero; then gather every layer
#   at once: the peak of L layers alive hides under the debt
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    for shard in shards:
        x = layer_fn(torch.zeros(n * shard.numel(), dtype=shard.dtype), x)
    fulls, works = [], []
    for shard in shards:
        full = torch.empty(n * shard.numel(), dtype=shard.dtype)
        works.append(dist.all_gather_into_tensor(full, shard, async_op=True))
        fulls.append(full)
    for work in works:
        work.wait()
    for full in fulls:
        x = layer_fn(full, x)
    return x
