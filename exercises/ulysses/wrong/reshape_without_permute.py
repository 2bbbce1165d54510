# expect: wrong_answer
# Mistake: cuts x into n blocks as it lies in memory, without the permute: block p is then a
# run of positions with all their heads, not rank p's heads of every position.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    send = x.reshape(n, -1)
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, heads // n, dim)


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
