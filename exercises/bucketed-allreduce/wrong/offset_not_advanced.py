# expect: wrong_answer
# Mistake: copies every gradient of a bucket from the start of the flat buffer: the offset of
# each gradient in the bucket is never advanced.
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
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= n
        for g in bucket:
            g.copy_(flat[:g.numel()].reshape(g.shape))
