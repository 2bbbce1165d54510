# expect: forbidden_primitive
# Mistake: calls the built-in dist.all_reduce instead of composing it from its two halves.
import torch.distributed as dist


def all_reduce(t):
    dist.all_reduce(t)
