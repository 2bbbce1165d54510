# expect: wrong_answer
# Mistake: deals the heads out round-robin (rank p gets heads p, p+n, ...) instead of the p-th
# run of H/n heads; heads_to_seq undoes it, so only the round trip would pass.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    send = x.reshape(local, mine, n, dim).permute(2, 0, 1, 3).contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, mine, dim)


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 2, 0, 3).reshape(local, n * mine, dim)
