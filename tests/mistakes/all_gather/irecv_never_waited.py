# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: irecv (line 18) was never waited on
# names_zh: irecv（第 18 行） 从未等待
# Never waits on the receive: the next step forwards a block that has not arrived.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        dist.irecv(blocks[recv_idx], left)
        dist.isend(blocks[send_idx], right).wait()
    return out
