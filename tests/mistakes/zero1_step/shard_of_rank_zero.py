# expect: wrong_answer
# gloo: wrong on sample-2-ranks
# names: rank 1's 2nd collective call
# names: all_gather_into_tensor (line 23): its input is computed from rank 0's slice of param
# names: where the reference's is computed from rank 1's own
# names_zh: all_gather_into_tensor（第 23 行）
# names_zh: 由 rank 0 的 param 分片（param[0:2]）算出
# Every rank updates rank 0's slice of the parameters with its own momentum shard.
import torch
import torch.distributed as dist


def zero1_step(param, grad, momentum, lr, beta):
    """One SGD-with-momentum step, the optimizer state sharded: returns (param, momentum)."""
    n = dist.get_world_size()
    shard = param.numel() // n
    mine = slice(0, shard)
    g = torch.empty(shard, dtype=grad.dtype)
    dist.reduce_scatter_tensor(g, grad)
    momentum = beta * momentum + g / n
    new = param[mine] - lr * momentum
    out = torch.empty_like(param)
    dist.all_gather_into_tensor(out, new)
    return out, momentum
