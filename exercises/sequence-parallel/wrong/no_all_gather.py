# expect: runtime_error
# Mistake: skips the all-gather: the column-parallel matmul runs on this rank's s/n rows only,
# so the partial output has s/n rows, not the s the reduce-scatter splits into n shards.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    rows, d = x.shape
    partial = F.gelu(x @ w1) @ w2
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)
    return F.layer_norm(mine, (d,))
