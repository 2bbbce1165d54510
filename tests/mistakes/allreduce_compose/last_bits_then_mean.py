# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every collective call matched the reference's
# names: divided by n = 4 (a mean)
# names_zh: 每条集合通信调用都与参考解逐步一致
# names_zh: 除以了 n = 4（平均值）
# Adds 0.3 and takes it off again before the exchange (float32's last bits move: 1 is no longer 1),
# then divides the sum by n (a mean, where the exercise asks for the sum).
import torch
import torch.distributed as dist


def all_reduce(t):
    """Sum ``t`` over all ranks, in place."""
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = (t + 0.3) - 0.3  # there and back: the last bits move
    shard = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, padded)
    dist.all_gather_into_tensor(padded, shard)
    t.copy_(padded[: t.numel()] / n)
