# expect: runtime_error
"""Probe: all_to_all with tensors of different sizes, which gloo refuses."""

import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    into = [torch.empty(rank + 1, dtype=row.dtype) for _ in range(n)]
    dist.all_to_all(into, [row[: j + 1].clone() for j in range(n)])
    return torch.cat(into)
