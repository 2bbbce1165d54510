# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: every collective call matched the reference's
# names: divided by n = 2 (a mean)
# names_zh: 每条集合通信调用都与参考解逐步一致
# names_zh: 除以了 n = 2（平均值）
# A scale folded in and out of the second matmul (its last bits differ), then a mean.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """y = gelu(x·W1)·W2 from this rank's shards: W1's columns, W2's matching rows."""
    h = F.gelu(x @ w1)
    y = (h * 3) @ w2 / 3  # a scale folded in and out: the last bits differ
    dist.all_reduce(y)
    return y / dist.get_world_size()
