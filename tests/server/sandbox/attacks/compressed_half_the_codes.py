# attack: a cheaper byte count for compressed-allreduce: ring only the first half of each
#         step's codes and return the other half as this rank's code times n, hoping a
#         tolerance absorbs the estimate: half the bytes of the int8 ring
# exercise: compressed-allreduce
# expect: wrong_answer
# (every code is summed exactly, so every element is compared exactly: one code off is scale)
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
    n = dist.get_world_size()
    residual = torch.zeros_like(grad)
    results = []
    g = grad
    for step in range(steps):
        x = g + residual
        codes = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - codes.float() * scale
        half = max(n, (codes.numel() + 1) // 2)
        summed = codes[:half].clone()
        ring_sum(summed)
        results.append(torch.cat([summed.float(), codes[half:].float() * n]) * scale)
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
