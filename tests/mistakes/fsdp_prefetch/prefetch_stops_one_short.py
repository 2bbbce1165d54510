# expect: wrong_answer
# gloo: wrong on sample-4-ranks-4-layers
# names: what it needs is what the reference's 4th all_gather_into_tensor delivers
# names: rank 0 makes only 3 all_gather_into_tensor calls: make that one too
# names_zh: rank 0 只做了 3 次 all_gather_into_tensor
# Prefetches while layer + 2 < L: the last layer is never gathered, and layer_fn runs it with
# the previous layer's parameters, still in the buffer.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()

    def gather(layer):
        full = torch.empty(n * shards[layer].numel(), dtype=shards[layer].dtype)
        return full, dist.all_gather_into_tensor(full, shards[layer], async_op=True)

    ahead = gather(0)
    for layer in range(len(shards)):
        full, work = ahead
        work.wait()
        if layer + 2 < len(shards):
            ahead = gather(layer + 1)
        x = layer_fn(full, x)
    return x
