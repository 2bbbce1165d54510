# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's all-gather step 1 (line 21); again the values of its own 1st send
# names_zh: all-gather 第 1 步（第 21 行）; 又是它第 1 次发送的值
# Off by one in the all-gather half of the int8 ring: it forwards chunk r - s, not the finished r + 1 - s.
import torch
import torch.distributed as dist


def ring_sum(codes):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(codes.chunk(n))
    for step in range(2 * (n - 1)):
        s = step % (n - 1)
        if step < n - 1:
            send_idx, recv_idx = (rank - s) % n, (rank - s - 1) % n
        else:
            send_idx, recv_idx = (rank - s) % n, (rank - s - 1) % n
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
        codes = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - codes.float() * scale
        ring_sum(codes)
        results.append(codes.float() * scale)
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
