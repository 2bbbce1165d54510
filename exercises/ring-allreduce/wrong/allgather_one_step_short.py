# expect: wrong_answer
# Mistake: the all-gather runs n-2 steps instead of n-1, so one chunk per rank keeps a partial sum.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):  # reduce-scatter
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
    for step in range(n - 2):  # all-gather: "I already hold one finished chunk, so one step less"
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
