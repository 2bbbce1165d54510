# expect: forbidden_primitive
# Mistake: calls the built-in dist.reduce.
import torch.distributed as dist


def reduce(t, dst):
    dist.reduce(t, dst)
