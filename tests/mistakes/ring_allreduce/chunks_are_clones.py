# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the ring's; it still holds rank 0's own input
# names: into a copy (a clone, a new tensor)
# names_zh: 每条消息都与环形算法逐步一致; 副本
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = [c.clone() for c in t.chunk(n)]
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx], right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
