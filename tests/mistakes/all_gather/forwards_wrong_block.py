# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's all-gather step 1 (line 18): it sends [0] to rank 1; the ring sends block 0 (rank 0's)
# names_zh: all-gather 第 1 步（第 18 行）
# Forwards block r - s - 1, which it has not received yet, instead of block r - s.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step - 1) % n, (rank - step - 1) % n
        reqs = [dist.isend(blocks[send_idx], right), dist.irecv(blocks[recv_idx], left)]
        for req in reqs:
            req.wait()
    return out
