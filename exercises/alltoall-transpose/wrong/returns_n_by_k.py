# expect: wrong_answer
# Mistake: returns the received blocks as an (n, k) tensor, forgetting the final .t() to make it (k, n).
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row)
    return received.view(n, k)
