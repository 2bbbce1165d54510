# expect: wrong_answer
# Mistake: all_reduce sums; the mean needs the division by the world size.
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
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
