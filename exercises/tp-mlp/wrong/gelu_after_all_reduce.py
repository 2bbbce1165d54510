# expect: wrong_answer
# Mistake: both matmuls first, then the all-reduce, then the gelu: gelu(x·W1·W2). The gelu is
# not linear: it belongs on each rank's columns of x·W1, between the two matmuls.
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    y = x @ w1 @ w2
    dist.all_reduce(y)
    return F.gelu(y)
