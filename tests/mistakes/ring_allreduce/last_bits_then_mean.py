# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every message matched the ring's
# names: divided by n = 4 (a mean)
# names_zh: 每条消息都与环形算法逐步一致
# names_zh: 除以了 n = 4（平均值）
# Adds 0.3 to t and takes it off again before the ring (float32's last bits move), then turns the
# sum into a mean.
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    """Sum ``t`` over all ranks, in place, passing one chunk to the right at each step."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    t.copy_((t + 0.3) - 0.3)
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        chunks[recv_idx].copy_(buf)
    t.div_(n)
