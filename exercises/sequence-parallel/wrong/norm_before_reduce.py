# expect: wrong_answer
# Mistake: normalizes each rank's partial output, then reduce-scatters: the layer norm is not
# linear, so the sum of the norms is not the norm of the sum.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n = dist.get_world_size()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full, x)
    partial = F.layer_norm(F.gelu(full @ w1) @ w2, (d,))
    mine = torch.empty(rows, d, dtype=x.dtype)
    dist.reduce_scatter_tensor(mine, partial)
    return mine
