# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: send (line 20) reads the buffer of its irecv (line 20) before waiting on that request
# names_zh: 在等待 irecv（第 20 行） 之前就读取了它的缓冲区
# Posts every step's send and receive, then waits for all: step s sends the block that step
# s - 1's receive had not yet delivered.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.zeros(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    reqs = []
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        reqs += [dist.isend(blocks[send_idx], right), dist.irecv(blocks[recv_idx], left)]
    for req in reqs:
        req.wait()
    return out
