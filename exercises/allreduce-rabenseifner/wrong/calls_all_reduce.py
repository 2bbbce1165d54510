# expect: forbidden_primitive
# Mistake: calls the built-in dist.all_reduce.
import torch.distributed as dist


def all_reduce(t):
    dist.all_reduce(t)
