# expect: wrong_answer
# gloo: wrong on sample-4-ranks-4-layers
# names: rank 0's 2nd collective call
# names: all_gather_into_tensor (line 16): its input is the one the reference gives its 1st call; not its 2nd
# names_zh: 第 16 行; 第 1 次调用
# Off by one: 'prefetches' the layer it is computing, so layer l runs with layer l - 1's parameters.
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
        ahead = gather(layer)
        x = layer_fn(full, x)
    ahead[1].wait()
    return x
