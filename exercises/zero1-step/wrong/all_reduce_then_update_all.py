# expect: forbidden_primitive
# Mistake: plain data parallelism: all-reduces the whole gradient and updates every parameter,
# which needs the momentum of all N of them. ZeRO allows only the two halves.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n = dist.get_world_size()
    g = grad.clone()
    dist.all_reduce(g)
    full = torch.zeros_like(param)
    shard = param.numel() // n
    full[dist.get_rank() * shard:(dist.get_rank() + 1) * shard] = momentum
    full = beta * full + g / n
    return param - lr * full, full
