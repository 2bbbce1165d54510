# expect: deadlock
# Mistake: a binary tree where every rank first receives from its parent, the root included
# (its "parent" (0-1)//2 = -1 is some other rank): nobody ever sends.
import torch.distributed as dist


def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    v = (rank - src) % n
    dist.recv(t, ((v - 1) // 2 + src) % n)
    for child in (2 * v + 1, 2 * v + 2):
        if child < n:
            dist.send(t, (child + src) % n)
