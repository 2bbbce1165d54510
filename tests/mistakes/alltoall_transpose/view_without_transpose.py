# expect: wrong_answer
# gloo: wrong on 3-ranks-k2
# names: every collective call matched the reference's
# names: element [0][1] should be M[1][0] (rank 1's element 0) but is M[0][1]
# names_zh: 应为 M[1][0]
# Reads the received row as (k, n) directly: block j's elements end up along a row.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row)
    return received.view(k, n)
