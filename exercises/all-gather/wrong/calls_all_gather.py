# expect: forbidden_primitive
# Mistake: calls the built-in dist.all_gather_into_tensor instead of writing the ring.
import torch
import torch.distributed as dist


def all_gather(x):
    out = torch.empty(dist.get_world_size() * x.numel(), dtype=x.dtype)
    dist.all_gather_into_tensor(out, x)
    return out
