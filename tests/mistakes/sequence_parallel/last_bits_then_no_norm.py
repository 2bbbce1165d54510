# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: every collective call matched the reference's
# names: normalize your rows
# names_zh: 每条集合通信调用都与参考解逐步一致; 要对你的行做归一化
# A scale folded in and out of the second matmul (its last bits differ), then no layer norm.
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
    partial = (F.gelu(full @ w1) * 3) @ w2 / 3  # a scale folded in and out: the last bits differ
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)
    return mine
