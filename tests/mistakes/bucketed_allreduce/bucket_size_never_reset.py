# expect: over_budget
# gloo: right on sample-4-ranks
# names: made 4 all_reduce calls; makes 3 (8 + 8 + 4 elements); yours carry 8 + 2 + 6 + 4 elements
# names: the bucket's count of bytes held is never reset when a bucket closes
# names_zh: 调用了 4 次 all_reduce; 第 2 次调用 all_reduce（第 25 行），携带 2 个元素
# names_zh: 桶内字节计数在开新桶时从未清零
# names: its all_reduce call 2 (line 25), of 2 elements where bucket 2 holds 8
# The bucket's byte count is never reset, so after the first bucket every gradient opens its own.
import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    buckets, held = [], 0
    for g in grads:
        nbytes = g.numel() * g.element_size()
        if buckets and held + nbytes <= bucket_bytes:
            buckets[-1].append(g)
        else:
            buckets.append([g])
        held += nbytes
    n = dist.get_world_size()
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
