# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's reduce-scatter step 2 (line 17); the ring sends shard 2 summing ranks 0, 3
# names_zh: reduce-scatter 第 2 步（第 17 行）
# Adds what arrives into the shard it just sent instead of the one it received.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty_like(shards[recv_idx])
        reqs = [dist.isend(shards[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        shards[send_idx] += buf
    return shards[rank]
