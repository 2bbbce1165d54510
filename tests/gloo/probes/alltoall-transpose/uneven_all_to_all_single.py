# expect: wrong_answer
"""Probe: all_to_all_single with uneven splits (rank r sends (r + j) % 3 + 1 elements to j)."""

import torch
import torch.distributed as dist


def transpose(row):
    rank, n = dist.get_rank(), dist.get_world_size()
    sizes = [(rank + j) % 3 + 1 for j in range(n)]  # what rank r sends to j, and receives from j
    send = torch.cat([row.repeat(3)[j:j + sizes[j]] for j in range(n)])
    got = torch.empty(sum(sizes), dtype=row.dtype)
    dist.all_to_all_single(got, send, output_split_sizes=sizes, input_split_sizes=sizes)
    return got
