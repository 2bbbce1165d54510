# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: the return value[2]; rank 0's reduce-scatter step 1 (line 27); Hint: step 2 adds a wrong residual
# names_zh: 返回值[2]; rank 0 的 reduce-scatter 第 1 步（第 27 行）; 提示：第 2 步加上的残差不对
# The quantizer adds the residual before rounding but keeps g - codes * scale as the new one,
# dropping what was carried in: right at steps 0 and 1, wrong from step 2.
import torch
import torch.distributed as dist


def quantize(g, residual, scale):
    codes = torch.clamp(torch.round((g + residual) / scale), -127, 127).to(torch.int8)
    return codes, g - codes.float() * scale


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
    residual = torch.zeros_like(grad)
    results = []
    g = grad
    for step in range(steps):
        codes, residual = quantize(g, residual, scale)
        ring_sum(codes)
        results.append(codes.float() * scale)
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
