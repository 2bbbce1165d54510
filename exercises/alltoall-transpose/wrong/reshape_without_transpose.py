# expect: wrong_answer
# Mistake: reshapes the received blocks straight to (k, n) without transposing them (only right when k = 1).
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row)
    return received.view(k, n)
