# expect: wrong_answer
# Mistake: returns the sum of the codes, forgetting to multiply it by scale.
import torch
import torch.distributed as dist


def ring_sum(codes):
    """Sum an int8 tensor over all ranks, in place: the ring's reduce-scatter, then all-gather."""
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
    """The all-reduced sum of each step's gradient, sent as int8 codes of ``scale``, with the
    rounding error carried from step to step (error feedback)."""
    residual = torch.zeros_like(grad)
    results = []
    g = grad
    for step in range(steps):
        x = g + residual
        codes = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - codes.float() * scale
        ring_sum(codes)
        results.append(codes.float())
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
