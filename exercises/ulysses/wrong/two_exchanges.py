# expect: over_budget
# Mistake: correct, but exchanges the two halves of D in two all_to_all_single calls: the same
# bytes in twice the messages, and Ulysses takes one call per switch.
import torch
import torch.distributed as dist


def _switch(x, n, local, mine, dim):
    send = x.reshape(local, n, mine, dim).permute(1, 0, 2, 3).contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, mine, dim)


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    half = dim // 2
    first = _switch(x[:, :, :half].contiguous(), n, local, heads // n, half)
    second = _switch(x[:, :, half:].contiguous(), n, local, heads // n, dim - half)
    return torch.cat([first, second], dim=2)


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
