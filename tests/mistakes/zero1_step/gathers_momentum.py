# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 2nd collective call
# names: all_gather_into_tensor (line 22): its input is what the function returns as return value[1]
# names_zh: all_gather_into_tensor（第 22 行）
# names_zh: 它的输入是函数作为返回值[1]返回的那个值
# All-gathers the momentum shard where the updated parameters belong.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    """One SGD-with-momentum step, the optimizer state sharded: returns (param, momentum)."""
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(dist.get_rank() * shard, (dist.get_rank() + 1) * shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)
    momentum = beta * momentum + g / n
    new = param[mine] - lr * momentum  # noqa: F841 - computed, then not gathered
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, momentum)
    return out, momentum
