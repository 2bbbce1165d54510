# expect: wrong_answer
"""Probe: a sum over the even ranks' subgroup, then MAX and MIN over everyone, then a barrier."""

import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    evens = dist.new_group(list(range(0, n, 2)))
    if rank % 2 == 0:
        dist.all_reduce(t, group=evens)
    high, low = t.clone(), t.clone()
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    dist.barrier()
    t += high - low
