# expect: wrong_answer
# Mistake: reduce_scatter_tensor sums the gradients; the step uses the sum, never dividing by n.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)
    momentum = beta * momentum + g
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, param[mine] - lr * momentum)
    return out, momentum
