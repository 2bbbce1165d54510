# expect: runtime_error
# Mistake: permutes x into blocks of heads but hands the non-contiguous view to all_to_all_single.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    send = x.reshape(local, n, mine, dim).permute(1, 0, 2, 3)
    received = torch.empty(n, local, mine, dim, dtype=x.dtype)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, mine, dim)


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
