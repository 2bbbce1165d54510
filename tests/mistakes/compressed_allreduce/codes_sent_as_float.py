# expect: over_budget
# gloo: right on sample-4-ranks
# names: sends 144 bytes to rank 1 where the int8 ring sends 36 (as many elements
# names: 4 bytes each where the int8 ring's take 1)
# names_zh: 每个 4 字节，而int8 环形算法的每个 1 字节
# Rounds to codes but sums them as float32: right, four times the bytes of int8.
import torch
import torch.distributed as dist


def ring_sum(codes):  # codes: float32
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(codes.chunk(n))
    for step in range(2 * (n - 1)):
        s = step % (n - 1)
        if step < n - 1:
            send_idx, recv_idx = (rank - s) % n, (rank - s - 1) % n
        else:
            send_idx, recv_idx = (rank + 1 - s) % n, (rank - s) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].clone(), right), dist.irecv(buf, left)]
        for req in reqs:
            req.wait()
        if step < n - 1:
            chunks[recv_idx] += buf
        else:
            chunks[recv_idx].copy_(buf)


def compressed_all_reduce(grad, next_grad, steps, scale):
    residual = torch.zeros_like(grad)
    results = []
    g = grad
    for step in range(steps):
        x = g + residual
        codes = torch.clamp(torch.round(x / scale), -127, 127)
        residual = x - codes * scale
        ring_sum(codes)
        results.append(codes * scale)
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
