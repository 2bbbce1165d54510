# expect: forbidden_primitive
# Mistake: gathers every rank's shard and slices its own heads; all_gather is not allowed here
# (and it sends every rank the whole sequence of every head, n times what it needs).
import torch
import torch.distributed as dist


def seq_to_heads(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    mine = x.shape[1] // n
    shards = [torch.empty_like(x) for _ in range(n)]
    dist.all_gather(shards, x.contiguous())
    return torch.cat(shards)[:, rank * mine:(rank + 1) * mine].contiguous()


def heads_to_seq(y):
    rank, n = dist.get_rank(), dist.get_world_size()
    local = y.shape[0] // n
    shards = [torch.empty_like(y) for _ in range(n)]
    dist.all_gather(shards, y.contiguous())
    return torch.cat(shards, dim=1)[rank * local:(rank + 1) * local].contiguous()
