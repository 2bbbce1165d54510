# expect: wrong_answer
# gloo: wrong on sample-4-ranks-seq-to-heads
# names: rank 0's 1st collective call
# names: all_to_all_single (line 18): its input differs from the reference's at element 2
# names_zh: all_to_all_single（第 18 行）
# Splits the heads as (mine, n): rank j gets heads j, j + n, … instead of a contiguous block.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    """[s/n, H, D] (my positions, every head) -> [s, H/n, D] (every position, my heads)."""
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    send = x.reshape(local, mine, n, dim).permute(2, 0, 1, 3).contiguous()
    received = torch.empty_like(send)
    dist.all_to_all_single(received, send)
    return received.reshape(n * local, mine, dim)


def heads_to_seq(y):
    """[s, H/n, D] (every position, my heads) -> [s/n, H, D] (my positions, every head)."""
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(n, local, mine, dim).permute(1, 0, 2, 3).reshape(local, n * mine, dim)
