# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: every collective call matched the reference's
# names: rank 0's whole result is the expected one divided by n = 2 (a mean)
# names_zh: 正确结果除以了 n = 2（平均值）
# Divides by the world size after the all-reduce (a DDP habit): the MLP needs the sum.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """y = gelu(x·W1)·W2 from this rank's shards: W1's columns, W2's matching rows."""
    y = F.gelu(x @ w1) @ w2
    dist.all_reduce(y)
    y /= dist.get_world_size()
    return y
