# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's 1st collective call, reduce_scatter_tensor (line 17): its input is the reference's
# names: divided by n = 4
# names_zh: reduce_scatter_tensor（第 17 行）：它的输入是参考解的输入除以了 n = 4
# Divides by n before the exchange: a mean where the exercise asks for the sum.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t / n  # the mean, as DDP wants it
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    dist.all_gather_into_tensor(padded, shard)
    t.copy_(padded[: t.numel()])
