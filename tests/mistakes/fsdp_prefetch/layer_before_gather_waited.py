# expect: wrong_answer
# gloo: wrong on sample-4-ranks-4-layers
# names: rank 0's 1st call of layer_fn (line 23) was given the buffer of its all_gather_into_tensor
# names: at line 16 before that request completed: wait on the request before the call
# names_zh: layer_fn（第 23 行）; 第 16 行的 all_gather_into_tensor 的缓冲区; 调用之前先等待该请求
# Waits on each layer's all-gather only after layer_fn has used the gathered buffer.
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
        if layer + 1 < len(shards):
            ahead = gather(layer + 1)
        x = layer_fn(full, x)
        work.wait()
    return x
