# expect: forbidden_primitive
# Mistake: builds the all-reduce from reduce_scatter_tensor and all_gather_into_tensor; this
# exercise allows only all_reduce.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    n = dist.get_world_size()
    grads = list(backward())
    flat = torch.cat(grads)
    part = torch.empty(flat.numel() // n, dtype=flat.dtype)
    dist.reduce_scatter_tensor(part, flat)
    dist.all_gather_into_tensor(flat, part)
    return list((flat / n).split([g.numel() for g in grads]))[::-1]
