# expect: over_budget
# Mistake: correct, but all_to_all sends the whole row to every rank, (n-1)*n*k elements instead of (n-1)*k.
import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    k = row.numel() // n
    rows = [torch.empty_like(row) for _ in range(n)]
    dist.all_to_all(rows, [row] * n)
    matrix = torch.stack(rows)
    return matrix[:, rank * k:(rank + 1) * k].t()
