# expect: over_budget
# gloo: right on sample-4-ranks
# names: made 1 all_reduce call; buckets of at most 32 bytes makes 3 (8 + 8 + 4 elements)
# names: a bucket holds at most bucket_bytes
# names: its all_reduce call 1 (line 24), of 20 elements where bucket 1 holds 8
# names_zh: 调用了 1 次 all_reduce; 应得 3 个桶; 第 1 次调用 all_reduce（第 24 行），携带 20 个元素
# Compares a bucket's element count with bucket_bytes: buckets four times too big.
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
