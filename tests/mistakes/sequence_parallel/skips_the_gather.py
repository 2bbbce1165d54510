# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 1st collective call, all_reduce (line 15): the reference calls all_gather_into_tensor there
# names_zh: 此处调用的是 all_gather_into_tensor
# Multiplies its own rows only and all-reduces: sums different positions of different ranks.
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    """x: my s/n rows; w1, w2: my shards of W1 (columns) and W2 (rows). Returns my rows of
    layer_norm(gelu(X·W1)·W2)."""
    rows, d = x.shape
    mine = F.gelu(x @ w1) @ w2
    dist.all_reduce(mine)
    return F.layer_norm(mine, (d,))
