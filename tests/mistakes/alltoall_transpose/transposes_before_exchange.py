# expect: wrong_answer
# names: should be M[; but is M[
# names_zh: 应为 M[
# Transposes its own blocks before sending, so each block arrives reordered.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row.view(n, k).t().contiguous().view(-1))
    return received.view(n, k).t()
