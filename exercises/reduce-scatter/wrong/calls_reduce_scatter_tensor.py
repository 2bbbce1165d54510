# expect: forbidden_primitive
# Mistake: calls the built-in dist.reduce_scatter_tensor instead of writing the ring.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    n = dist.get_world_size()
    out = torch.empty(x.numel() // n, dtype=x.dtype)
    dist.reduce_scatter_tensor(out, x)
    return out
