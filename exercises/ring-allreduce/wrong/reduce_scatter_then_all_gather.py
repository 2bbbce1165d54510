# expect: forbidden_primitive
# Mistake: builds all-reduce = reduce-scatter + all-gather from the built-in collectives, not from send/recv.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    n = dist.get_world_size()
    size = -(-t.numel() // n)
    padded = torch.zeros(size * n, dtype=t.dtype)
    padded[: t.numel()] = t
    part = torch.empty(size, dtype=t.dtype)
    dist.reduce_scatter_tensor(part, padded)
    dist.all_gather_into_tensor(padded, part)
    t.copy_(padded[: t.numel()])
