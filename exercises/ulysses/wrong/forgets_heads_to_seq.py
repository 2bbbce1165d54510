# expect: runtime_error
# Mistake: writes seq_to_heads only; the cases that call heads_to_seq find no such function.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    send = x.reshape(local, n, mine, dim).permute(1, 0, 2, 3).contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, mine, dim)
