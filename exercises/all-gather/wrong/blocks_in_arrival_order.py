# expect: wrong_answer
# Mistake: appends the blocks in the order they arrive (own block first), not in rank order.
import torch
import torch.distributed as dist


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    got = [x.clone()]
    for _ in range(n - 1):
        buf = torch.empty_like(x)
        reqs = [dist.isend(got[-1], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        got.append(buf)
    return torch.cat(got)
