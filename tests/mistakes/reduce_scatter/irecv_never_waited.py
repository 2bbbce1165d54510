# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: irecv (line 17) was never waited on
# names_zh: irecv（第 17 行） 从未等待
# Waits on the send only; the receive's buffer is added before anything arrived in it.
import torch
import torch.distributed as dist


def reduce_scatter(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    shards = [s.clone() for s in x.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 2) % n
        buf = torch.zeros_like(shards[recv_idx])
        dist.irecv(buf, left)
        dist.isend(shards[send_idx], right).wait()
        shards[recv_idx] += buf
    return shards[rank]
