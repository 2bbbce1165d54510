# expect: wrong_answer
# gloo: wrong on sample-4-ranks-4-layers
# names: rank 0's 1st call of layer_fn (line 26) was given, as its 1st tensor, the one the reference
# names: gives its 2nd call of layer_fn, not its 1st
# names_zh: rank 0 第 1 次调用 layer_fn（第 26 行）; 第 2 次调用 layer_fn 时的那个
# Computes each layer with the parameters it has just prefetched: layer l runs with layer l + 1's.
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
        if layer + 1 < len(shards):
            ahead = gather(layer + 1)
            ahead[1].wait()
            full = ahead[0]
        x = layer_fn(full, x)
    return x
