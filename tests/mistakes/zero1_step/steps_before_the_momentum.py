# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: moved by lr times the momentum as it was before this step
# names: update the momentum first, m ← beta·m + g, then step with the new one
# names_zh: 按 lr 乘以本步更新之前的动量移动了
# names_zh: 要先更新动量
# Steps the parameters with the momentum it was given, then updates the momentum: SGD with
# momentum updates m first and steps with the new m. Every exchange is right.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    rank, n = dist.get_rank(), dist.get_world_size()
    shard = param.numel() // n
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad.contiguous())
    new = param[rank * shard:(rank + 1) * shard] - lr * momentum
    momentum = beta * momentum + g / n
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, new.contiguous())
    return out, momentum
