"""Reference: reduce-scatter the gradients, average and apply this rank's shard of the step,
all-gather the parameters."""

import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    """One SGD-with-momentum step, the optimizer state sharded: returns (param, momentum)."""
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)  # the sum of my shard of every rank's gradient
    momentum = beta * momentum + g / n
    new = param[mine] - lr * momentum
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, new)  # every rank's updated shard, in rank order
    return out, momentum
