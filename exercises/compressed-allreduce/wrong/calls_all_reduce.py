# expect: forbidden_primitive
# Mistake: sums the int8 codes with the built-in dist.all_reduce instead of the ring.
import torch
import torch.distributed as dist


def compressed_all_reduce(grads, scale):
    residual = torch.zeros_like(grads[0])
    results = []
    for g in grads:
        x = g + residual
        codes = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
        residual = x - codes.float() * scale
        dist.all_reduce(codes)
        results.append(codes.float() * scale)
    return results
