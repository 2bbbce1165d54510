# expect: runtime_error
# Mistake: a typo (recieved) raises NameError on every rank.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row)
    return recieved.view(n, k).t()
