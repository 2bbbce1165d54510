# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 0's 2nd collective call, all_gather_into_tensor (line 21)
# names: its input is param[0:2], as it was passed in
# names_zh: 它的输入是传入时的 param[0:2]
# All-gathers its old parameter shard instead of the updated one.
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
    dist.all_gather_into_tensor(out, param[mine].contiguous())
    return out, momentum
