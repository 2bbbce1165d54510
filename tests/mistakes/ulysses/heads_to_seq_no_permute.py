# expect: wrong_answer
# gloo: wrong on 2-ranks-heads-to-seq
# names: every collective call matched the reference's
# names: should be sequence position 0, head 1, d 0 (from rank 1's input), but holds position 1, head 0, d 0
# names_zh: 应为序列位置 0、头 1、d 0
# heads_to_seq reshapes what it received without the inverse permute.
import torch
import torch.distributed as dist


def seq_to_heads(x):
    """[s/n, H, D] (my positions, every head) -> [s, H/n, D] (every position, my heads)."""
    n = dist.get_world_size()
    local, heads, dim = x.shape
    mine = heads // n
    send = x.reshape(local, n, mine, dim).permute(1, 0, 2, 3).contiguous()
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
    return received.reshape(local, n * mine, dim)
