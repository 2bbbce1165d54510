# expect: wrong_answer
# Mistake: keeps the momentum of all N parameters, as DDP does: all-gathers the mean gradient so
# that every rank can update a full-size momentum. The parameters come out right; the optimizer
# state is not sharded, and the returned momentum has N elements instead of N/n.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n, rank = dist.get_world_size(), dist.get_rank()
    shard = param.numel() // n
    mine = slice(rank * shard, (rank + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)
    mean = torch.empty_like(grad)
    dist.all_gather_into_tensor(mean, g / n)
    full_m = torch.zeros_like(param)
    full_m[mine] = momentum
    full_m = beta * full_m + mean
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, param[mine] - lr * full_m[mine])
    return out, full_m
