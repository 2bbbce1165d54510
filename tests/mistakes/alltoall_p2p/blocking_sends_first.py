# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: ranks 0–3 wait in send (line 17), each to a peer that is itself blocked in send (line 17)
# names_zh: send（第 17 行）
# Every rank sends all its blocks with blocking sends before receiving any.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(x)
    mine, theirs = x.chunk(n), out.chunk(n)
    theirs[rank].copy_(mine[rank])
    for peer in range(n):
        if peer != rank:
            dist.send(mine[peer].contiguous(), peer)
    for peer in range(n):
        if peer != rank:
            dist.recv(theirs[peer], peer)
    return out
