# expect: wrong_answer
# Mistake: transposes the row locally before the exchange, so each rank sends strided elements instead of its block of k.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    send = row.view(n, k).t().contiguous().view(-1)
    received = torch.empty_like(row)
    dist.all_to_all_single(received, send)
    return received.view(k, n)
