# expect: deadlock
# Mistake: blocking sends to ranks 0, 1, 2, ... in that order, then the receives: rank 0 waits in
# its send to rank 1 while rank 1 waits in its send to rank 0.
import torch
import torch.distributed as dist


def all_to_all(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    out = torch.empty_like(x)
    mine, theirs = x.chunk(n), out.chunk(n)
    theirs[rank].copy_(mine[rank])
    for peer in range(n):
        if peer != rank:
            dist.send(mine[peer], peer)
    for peer in range(n):
        if peer != rank:
            dist.recv(theirs[peer], peer)
    return out
