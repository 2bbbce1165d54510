"""Reference: one all_to_all_single each way; the permute sits on the side of the exchange where
the heads are split across ranks."""

import torch
import torch.distributed as dist


def seq_to_heads(x):
    """[s/n, H, D] (my positions, every head) -> [s, H/n, D] (every position, my heads)."""
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    # block p of what is sent = my positions, rank p's heads: [n, s/n, H/n, D]
    send = x.reshape(local, n, mine, dim).permute(1, 0, 2, 3).contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)  # block j = rank j's positions, my heads
    return received.reshape(n * local, mine, dim)


def heads_to_seq(y):
    """[s, H/n, D] (every position, my heads) -> [s/n, H, D] (my positions, every head)."""
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())  # block j = my positions, rank j's heads
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
