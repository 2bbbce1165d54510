# expect: wrong_answer
# Mistake: copies the all-reduce's reduce-scatter indices (send rank-step), so rank r finishes
# shard r+1, not shard r, and returns a shard that still lacks contributions.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(shards[recv_idx])
        reqs = [dist.isend(shards[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        shards[recv_idx] += buf
    return shards[rank]
