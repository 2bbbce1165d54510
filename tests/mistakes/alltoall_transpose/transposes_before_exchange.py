# expect: wrong_answer
# gloo: wrong on 3-ranks-k2
# names: rank 0's 1st collective call
# names: all_to_all_single (line 15): its input differs from the reference's at element 1
# names_zh: all_to_all_single（第 15 行）
# Transposes its own blocks before sending, so each block arrives reordered.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row.view(n, k).t().contiguous().view(-1))
    return received.view(n, k).t()
