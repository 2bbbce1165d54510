# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: your reduce-scatter matches the ring's; rank 0's all-gather step 1 (line 24)
# names: sends chunk 0 holding rank 0's own input only; the ring sends the complete chunk 1
# names_zh: all-gather 第 1 步（第 24 行）
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
