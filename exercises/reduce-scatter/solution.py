"""Reference: ring reduce-scatter, n-1 steps, one shard to the right at each."""

import torch
import torch.distributed as dist


def reduce_scatter(x):
    """Shard ``rank`` of the sum of every rank's ``x`` (x holds n shards of m elements)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]  # partial sums, one per shard
    for step in range(n - 1):
        # send the partial sum of shard rank-step-1; it ends on its owner after n-1 hops
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty_like(shards[recv_idx])
        reqs = [dist.isend(shards[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        shards[recv_idx] += buf
    return shards[rank]
