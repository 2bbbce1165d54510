# expect: runtime_error
# Mistake: the receive buffer is torch.empty(m), float32 whatever x is: a float64 shard does not
# fit in it.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    m = x.numel() // n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty(m)
        reqs = [dist.isend(shards[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        shards[recv_idx] += buf
    return shards[rank]
