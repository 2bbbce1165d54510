# expect: runtime_error
# Mistake: torch.cat of the gradients as they are: a bucket that mixes a vector with a 2 x 3
# matrix cannot be concatenated; flatten each one (g.reshape(-1)) first.
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
        flat = torch.cat(bucket)
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
