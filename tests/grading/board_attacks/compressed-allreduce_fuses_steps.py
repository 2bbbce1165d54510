# exercise: compressed-allreduce
# expect: wrong_answer
# trick: error feedback is local, so once every step's gradient is in hand the three steps' int8
#        codes can travel in one fused ring all-reduce (2(n-1) latencies instead of 6(n-1)): ask
#        next_grad for the later gradients up front, with a made-up result.
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
    grads = [grad] + [next_grad(torch.zeros_like(grad)) for _ in range(steps - 1)]
    residual = torch.zeros_like(grad)
    codes = []
    for g in grads:
        x = g + residual
        c = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - c.float() * scale
        codes.append(c)
    fused = torch.cat(codes)
    ring_sum(fused)
    return [c.float() * scale for c in fused.chunk(steps)]
