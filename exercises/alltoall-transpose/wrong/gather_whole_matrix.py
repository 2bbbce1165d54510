# expect: forbidden_primitive
# Mistake: all_gathers the whole matrix and slices its own columns; all_gather is not allowed here (and sends n times too much).
import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    k = row.numel() // n
    rows = [torch.empty_like(row) for _ in range(n)]
    dist.all_gather(rows, row)
    matrix = torch.stack(rows)
    return matrix[:, rank * k:(rank + 1) * k].t()
