# expect: forbidden_primitive
# Mistake: calls the built-in dist.broadcast.
import torch.distributed as dist


def broadcast(t, src):
    dist.broadcast(t, src)
