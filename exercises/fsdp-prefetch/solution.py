"""Reference: FSDP's forward with prefetch. Layer 0's parameters are gathered first; while
layer l computes, layer l + 1's all-gather (async_op=True) is already on its way, so at most
two layers' gathered parameters exist at once."""

import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    """x through the L layers, each applied with its all-gathered parameters."""
    n = dist.get_world_size()

    def gather(layer):
        full = torch.empty(n * shards[layer].numel(), dtype=shards[layer].dtype)
        return full, dist.all_gather_into_tensor(full, shards[layer], async_op=True)

    ahead = gather(0)
    for layer in range(len(shards)):
        full, work = ahead
        work.wait()
        if layer + 1 < len(shards):
            ahead = gather(layer + 1)  # prefetch: gathered while this layer computes
        x = layer_fn(full, x)  # the gathered parameters are freed after this call
    return x
