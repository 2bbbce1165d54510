"""Reference: greedy buckets in list order, one flat all_reduce each, the mean copied back."""

import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    """Average every gradient over the ranks, in place, one all_reduce per bucket."""
    buckets, held = [], 0
    for g in grads:  # a gradient joins the open bucket if it still fits, else opens the next
        nbytes = g.numel() * g.element_size()
        if buckets and held + nbytes <= bucket_bytes:
            buckets[-1].append(g)
            held += nbytes
        else:
            buckets.append([g])
            held = nbytes
    n = dist.get_world_size()
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket])  # a copy: the bucket's own buffer
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:  # the mean back into each gradient, in place
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
