# exercise: fsdp-prefetch
# expect: wrong_answer
# trick: layer_fn is linear in its parameters, so each rank sums its shards of the L layers and
#   one all-gather and one layer_fn call do the work of L
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()
    mine = sum(shards[1:], shards[0].clone())
    full = torch.empty(n * mine.numel(), dtype=mine.dtype)
    dist.all_gather_into_tensor(full, mine)
    return layer_fn(full, x)
