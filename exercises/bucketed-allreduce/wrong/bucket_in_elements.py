# expect: over_budget
# Mistake: reads bucket_bytes as a number of elements, so buckets hold 4 (float32) or 8
# (float64) times the bytes they may: fewer, larger all_reduce calls than the greedy packing.
import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    buckets, held = [], 0
    for g in grads:
        if buckets and held + g.numel() <= bucket_bytes:
            buckets[-1].append(g)
            held += g.numel()
        else:
            buckets.append([g])
            held = g.numel()
    n = dist.get_world_size()
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
