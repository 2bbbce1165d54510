# expect: over_budget
# Mistake: all-reduces a whole bucket_bytes buffer per bucket, zero padding included, as a
# preallocated bucket would: right values, the right number of calls, but the padding is sent
# too (more bytes than the gradients hold).
import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    buckets, held = [], 0
    for g in grads:
        nbytes = g.numel() * g.element_size()
        if buckets and held + nbytes <= bucket_bytes:
            buckets[-1].append(g)
            held += nbytes
        else:
            buckets.append([g])
            held = nbytes
    n = dist.get_world_size()
    for bucket in buckets:
        numel = sum(g.numel() for g in bucket)
        size = max(bucket_bytes // bucket[0].element_size(), numel)
        flat = torch.zeros(size, dtype=bucket[0].dtype)
        flat[:numel] = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
