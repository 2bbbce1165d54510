# expect: forbidden_primitive
# Mistake: sums the int8 codes with the built-in dist.all_reduce instead of the ring.
import torch
import torch.distributed as dist


def compressed_all_reduce(grad, next_grad, steps, scale):
    residual = torch.zeros_like(grad)
    results = []
    g = grad
    for step in range(steps):
        x = g + residual
        codes = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - codes.float() * scale
        dist.all_reduce(codes)
        results.append(codes.float() * scale)
        if step + 1 < steps:
            g = next_grad(results[-1])
    return results
