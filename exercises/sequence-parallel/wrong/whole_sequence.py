# expect: wrong_answer
# Mistake: all-reduces the output and normalizes the whole sequence on every rank, returning
# all s rows: the activation is not sharded.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    n = dist.get_world_size()
    rows, d = x.shape
    full = torch.empty(n * rows, d, dtype=x.dtype)
    dist.all_gather_into_tensor(full, x)
    y = F.gelu(full @ w1) @ w2
    dist.all_reduce(y)
    return F.layer_norm(y, (d,))
