# expect: wrong_answer
# gloo: wrong on 2-ranks-odd
# names: reduce_scatter_tensor (line 17): its input differs from the reference's at element 0 (0 where
# names: the reference has 172.5)
# names_zh: reduce_scatter_tensor（第 17 行）; 第 0 个元素
# Pads at the front but copies back from the front: off by the padding when n does not divide N.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[size * n - t.numel():] = t
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    dist.all_gather_into_tensor(padded, shard)
    t.copy_(padded[: t.numel()])
