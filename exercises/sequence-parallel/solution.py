"""Reference: all-gather the sequence, the tensor-parallel MLP, reduce-scatter the partial
outputs along the sequence, layer norm on this rank's rows."""

import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    """x: my s/n rows; w1, w2: my shards of W1 (columns) and W2 (rows). Returns my rows of
    layer_norm(gelu(X·W1)·W2)."""
    n = dist.get_world_size()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full, x)  # the whole sequence, for the column-parallel matmul
    partial = F.gelu(full @ w1) @ w2  # my term of the sum, for every position
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)  # the sum, for my rows only
    return F.layer_norm(mine, (d,))
