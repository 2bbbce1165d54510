# expect: wrong_answer
# gloo: wrong on 2-ranks-heads-to-seq
# names: view the received buffer as [n, s/n, H/n, D] (the source rank first)
# names_zh: 把接收缓冲区 view 成 [n, s/n, H/n, D]（来源 rank 在最前）
# heads_to_seq reads the received buffer as [s/n, n, H/n, D]: the source rank is the first
# axis of what all_to_all_single delivers, so positions and source ranks come out swapped.
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


def heads_to_seq(y):
    n = dist.get_world_size()
    s, mine, dim = y.shape
    local = s // n
    received = torch.empty_like(y)
    dist.all_to_all_single(received, y.contiguous())
    return received.reshape(local, n, mine, dim).reshape(local, n * mine, dim)
