# expect: wrong_answer
"""Probe: all_to_all with a list of equal blocks (k elements each), then a barrier."""

import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    into = [torch.empty(row.numel() // n, dtype=row.dtype) for _ in range(n)]
    dist.all_to_all(into, [block.clone() for block in row.chunk(n)])
    dist.barrier()
    return torch.stack(into)
