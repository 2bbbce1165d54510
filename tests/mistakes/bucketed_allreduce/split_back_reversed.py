# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every collective call matched the reference's
# names: split back in reverse order; copy them back in the order they were concatenated
# names_zh: 顺序颠倒; 请按拼接时的顺序拷回
# Copies each bucket's mean back into its gradients last first: every all_reduce is right, and
# the gradients of one size swap their values.
import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    """Average every gradient over the ranks, in place, one all_reduce per bucket."""
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
        at = 0
        for g in reversed(bucket):
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
