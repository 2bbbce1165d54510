# expect: runtime_error
# Mistake: receives into out[p], one element, instead of block p (out.chunk(n)[p]): an m-element
# message does not fit.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        reqs = [dist.isend(blocks[send_idx], right), dist.irecv(out[recv_idx], left)]
        for req in reqs:
            req.wait()
    return out
