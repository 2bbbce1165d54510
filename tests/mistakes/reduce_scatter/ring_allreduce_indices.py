# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: reduce-scatter step 1 (line 18); sends shard 0 holding rank 0's own input only
# names: the ring sends shard 3; your indices are one step off; shift each index by one
# names_zh: reduce-scatter 第 1 步（第 18 行）; 第 0 段; 你的下标差了一步
# The off-by-one the statement warns about: the all-reduce's indices finish shard r + 1.
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
