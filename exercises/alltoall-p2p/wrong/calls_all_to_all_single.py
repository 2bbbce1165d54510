# expect: forbidden_primitive
# Mistake: calls the built-in dist.all_to_all_single.
import torch
import torch.distributed as dist


def all_to_all(x):
    out = torch.empty_like(x)
    dist.all_to_all_single(out, x)
    return out
