# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every collective call matched the reference's; it still holds rank 0's own input
# names: never into the tensor it was given
# names_zh: 从未写入传入的张量
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
