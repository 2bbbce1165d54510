# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the ring's; block 1 should be rank 1's x, but element 0 of it is rank 3's
# names_zh: 每条消息都与环形算法逐步一致
# Right messages, but the blocks are concatenated in the order they arrived, not rank order.
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
