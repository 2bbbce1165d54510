# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: every collective call matched the reference's; got 1.397922241; half of the sum
# names_zh: 每条集合通信调用都与参考解逐步一致
# weak: the exchange matched and the value is off, but the halving (the sum divided by n) is not recognised
# Divides by the world size after the all-reduce (a DDP habit): the MLP needs the sum.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """y = gelu(x·W1)·W2 from this rank's shards: W1's columns, W2's matching rows."""
    y = F.gelu(x @ w1) @ w2
    dist.all_reduce(y)
    y /= dist.get_world_size()
    return y
