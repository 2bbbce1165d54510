# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: fix: rank 0 returned while rank 1 still expects a call of it
# names: count each rank's loop
# names_zh: 各 rank 的调用次数不同; 逐个 rank 数一数循环的次数
# Rank 0 "already holds the start of the ring" and runs one step fewer: it returns while its
# right neighbour still waits for its last message.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    steps = n - 2 if rank == 0 else n - 1
    for step in range(steps):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty_like(shards[recv_idx])
        reqs = [dist.isend(shards[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        shards[recv_idx] += buf
    return shards[rank]
