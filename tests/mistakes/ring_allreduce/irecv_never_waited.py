# expect: wrong_answer
# gloo: spinning on sample-4-ranks
# names: irecv (line 19) was never waited on
# names_zh: irecv（第 19 行） 从未等待
# diverges: on gloo a rank did not return within the harness's 3 s and kept a CPU busy
#   (spinning): a receive never waited on is undefined there; the judge says wrong_answer
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.zeros_like(chunks[recv_idx])
        send = dist.isend(chunks[send_idx].contiguous(), right)
        dist.irecv(buf, left)
        send.wait()
        chunks[recv_idx] += buf
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
