# expect: forbidden_primitive
# Mistake: assembles the sequence with one broadcast per rank instead of one all-gather.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n, r = dist.get_world_size(), dist.get_rank()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    for src in range(n):
        block = x.clone() if src == r else torch.empty(rows, d, dtype=x.dtype)
        dist.broadcast(block, src=src)
        full[src * rows:(src + 1) * rows] = block
    partial = F.gelu(full @ w1) @ w2
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)
    return F.layer_norm(mine, (d,))
