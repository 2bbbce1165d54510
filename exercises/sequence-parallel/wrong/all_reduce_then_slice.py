# expect: over_budget
# Mistake: correct, but keeps tensor parallelism's all-reduce and slices this rank's rows out
# afterwards: the all-reduce sends twice a reduce-scatter's bytes and leaves the whole s × d
# activation on every rank.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n, r = dist.get_world_size(), dist.get_rank()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full, x)
    y = F.gelu(full @ w1) @ w2
    dist.all_reduce(y)
    return F.layer_norm(y[r * rows:(r + 1) * rows], (d,))
