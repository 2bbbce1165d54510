# expect: deadlock
# Mistake: every rank does a blocking recv from the left before its send: all wait, nobody sends.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty_like(shards[recv_idx])
        dist.recv(buf, left)
        dist.send(shards[send_idx], right)
        shards[recv_idx] += buf
    return shards[rank]
