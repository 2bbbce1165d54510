# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 1's 1st collective call
# names: all_reduce (line 14): its input differs from the reference's at element 1
# names_zh: all_reduce（第 14 行）
# All-reduces the intermediate gelu(x·W1_r), summing different columns, and then the product is partial.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """y = gelu(x·W1)·W2 from this rank's shards: W1's columns, W2's matching rows."""
    h = F.gelu(x @ w1)
    dist.all_reduce(h)
    y = h @ w2
    return y
