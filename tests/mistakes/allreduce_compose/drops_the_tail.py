# expect: wrong_answer
# gloo: wrong on 2-ranks-odd
# names: (line 14): its input has 6 elements where the reference's has 8; pad to ⌈N/n⌉ = 4 elements
# names_zh: reduce_scatter_tensor（第 14 行）; 6 个元素; 应补齐到每个 rank ⌈N/n⌉ = 4 个元素
# Floor-sized shards: the last N mod n elements are never reduced.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    size = t.numel() // n
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, t[: size * n])
    dist.all_gather_into_tensor(t[: size * n], shard)
