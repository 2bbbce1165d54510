# expect: wrong_answer
# Mistake: the sum is built in a copy and returned, but the judge reads t itself (in place), which is untouched.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = t.clone()
    chunks = list(out.chunk(n))
    for step in range(n - 1):  # reduce-scatter
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] = chunks[recv_idx] + buf
    for step in range(n - 1):  # all-gather
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] = buf
    return torch.cat(chunks)
