# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 1st collective call, reduce_scatter_tensor (line 19): its input is the reference's
# names: divided by n = 2: a mean taken before the call (or twice)
# names_zh: reduce_scatter_tensor（第 19 行）：它的输入是参考解的输入除以了 n = 2
# Averages the gradient before the reduce-scatter and again after it. On the sample, rank 0's
# gradient is twice its parameters, so grad / 2 is param as passed in: a coincidence of the
# sample that a generic draw does not repeat, so the scale is named instead.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    """One SGD-with-momentum step, the optimizer state sharded: returns (param, momentum)."""
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad / n)  # my shard of the mean gradient
    momentum = beta * momentum + g / n
    new = param[mine] - lr * momentum
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, new)  # every rank's updated shard, in rank order
    return out, momentum
