# expect: too_slow
# Mistake: avoids the deadlock with blocking calls, even ranks sending first and odd ranks
# receiving first: correct and within the byte bound, but each ring step now takes two
# latencies, one for the even senders and one for the odd ones.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.empty_like(shards[recv_idx])
        if rank % 2 == 0:
            dist.send(shards[send_idx], right)
            dist.recv(buf, left)
        else:
            dist.recv(buf, left)
            dist.send(shards[send_idx], right)
        shards[recv_idx] += buf
    return shards[rank]
