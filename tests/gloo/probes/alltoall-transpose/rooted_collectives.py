# expect: wrong_answer
"""Probe: broadcast, reduce, gather and scatter with various roots, all_gather_into_tensor and
reduce_scatter_tensor; the result puts together what each rank may read."""

import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    parts = []
    copy = row.clone()
    dist.broadcast(copy, n - 1)
    parts.append(copy)
    total = row.clone()
    dist.reduce(total, 0, op=dist.ReduceOp.MAX)
    if rank == 0:
        parts.append(total)
    rows = [torch.empty_like(row) for _ in range(n)] if rank == 1 % n else None
    dist.gather(row, rows, dst=1 % n)
    if rows is not None:
        parts += rows
    mine = torch.empty(row.numel() // n, dtype=row.dtype)
    dist.scatter(mine, list(row.chunk(n)) if rank == 0 else None, src=0)
    parts.append(mine)
    everything = torch.empty(n * row.numel(), dtype=row.dtype)
    dist.all_gather_into_tensor(everything, row)
    parts.append(everything)
    least = torch.empty(row.numel() // n, dtype=row.dtype)
    dist.reduce_scatter_tensor(least, row, op=dist.ReduceOp.MIN)
    parts.append(least)
    return torch.cat(parts)
