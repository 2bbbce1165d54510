# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: you returned a new tensor (`padded[:t.numel()]` at line 19); still holds rank 0's own input
# names: Write the result into t (e.g. t.copy_(result))
# names_zh: 你返回了一个新张量; 请把结果写入 t
# The reduction is right, but the result is returned, never copied back into t.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    dist.all_gather_into_tensor(padded, shard)
    return padded[: t.numel()]
