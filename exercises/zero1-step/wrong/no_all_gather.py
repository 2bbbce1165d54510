# expect: wrong_answer
# Mistake: updates this rank's shard of the parameters in place and stops there: the other
# ranks' shards keep their old values on this rank.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)
    momentum = beta * momentum + g / n
    param[mine] -= lr * momentum
    return param, momentum
