# expect: over_budget
# Mistake: correct, but all-gathers every rank's whole gradient and sums this rank's shard
# locally: (n−1)·N elements sent instead of the reduce-scatter's (n−1)·N/n.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    every = torch.empty(n * grad.numel(), dtype=grad.dtype)
    dist.all_gather_into_tensor(every, grad)
    g = every.view(n, -1)[:, mine].sum(dim=0)
    momentum = beta * momentum + g / n
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, param[mine] - lr * momentum)
    return out, momentum
