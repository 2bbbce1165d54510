# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 2nd collective call
# names: reduce_scatter_tensor (line 21): its input differs from the reference's at element 0
# names_zh: reduce_scatter_tensor（第 21 行）
# Applies gelu after the reduce-scatter: gelu of the sum instead of the sum of gelu(x·W1_r)·W2_r.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    """x: my s/n rows; w1, w2: my shards of W1 (columns) and W2 (rows). Returns my rows of
    layer_norm(gelu(X·W1)·W2)."""
    n = dist.get_world_size()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full, x)
    partial = (full @ w1) @ w2
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)
    return F.layer_norm(F.gelu(mine), (d,))
