# expect: over_budget
# gloo: right on sample-2-ranks
# names: line 19: all_reduce, 16 elements; Rank 0 needs only its 2 rows of the summed output (2 × 4)
# names_zh: rank 0 只需要求和后输出中自己的 2 行
# All-reduces the whole partial output, then keeps its own rows: right, twice the bytes.
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
    partial = F.gelu(full @ w1) @ w2
    dist.all_reduce(partial)
    mine = partial[dist.get_rank() * rows:(dist.get_rank() + 1) * rows]
    return F.layer_norm(mine, (d,))
