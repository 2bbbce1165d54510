# expect: over_budget
# Mistake: the root sends t to every other rank itself: (n-1)*S bytes from the root instead of
# ceil(log2 n)*S, and n-1 transfers one after another on its link.
import torch.distributed as dist


def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    if rank == src:
        reqs = [dist.isend(t, peer) for peer in range(n) if peer != src]
        for req in reqs:
            req.wait()
    else:
        dist.recv(t, src)
