# expect: runtime_error
# Mistake: no padding: when N is not divisible by n, reduce_scatter_tensor's input is not n
# equal shards and the call raises.
import torch
import torch.distributed as dist


def all_reduce(t):
    n = dist.get_world_size()
    shard = torch.empty(t.numel() // n, dtype=t.dtype)
    dist.reduce_scatter_tensor(shard, t)
    dist.all_gather_into_tensor(t, shard)
