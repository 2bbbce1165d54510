# expect: over_budget
# gloo: right on sample-2-ranks
# names: in all_gather_into_tensor where the reference sends 8
# names: the reference also calls reduce_scatter_tensor, which yours never does
# names_zh: 参考解还调用了 reduce_scatter_tensor，而你的代码从未调用
# Gathers every rank's whole gradient and sums it locally instead of reduce-scattering it: the
# right step, each rank sending its whole gradient to every other.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    n, rank = dist.get_world_size(), dist.get_rank()
    shard = param.numel() // n
    mine = slice(rank * shard, (rank + 1) * shard)
    every = torch.empty(n * grad.numel(), dtype=grad.dtype)
    dist.all_gather_into_tensor(every, grad)
    g = every.view(n, -1).sum(0)[mine]
    momentum = beta * momentum + g / n
    new = param[mine] - lr * momentum
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, new)
    return out, momentum
