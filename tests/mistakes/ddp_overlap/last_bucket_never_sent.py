# expect: wrong_answer
# gloo: wrong on 3-ranks-uneven-last-bucket
# names: rank 0 makes only 1 collective call (the last, all_reduce, at line 17); its 2nd, all_reduce
# names_zh: rank 0 只做了 1 次集合通信（最后一次是第 17 行的 all_reduce）
# Closes a bucket only when it is full: the last, partly filled bucket is never all-reduced.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    works, buckets, bucket, held = [], [], [], 0
    for g in backward():
        bucket.append(g)
        held += g.numel() * g.element_size()
        if held >= bucket_bytes:
            flat = torch.cat(bucket)
            works.append(dist.all_reduce(flat, async_op=True))
            buckets.append((flat, [g.numel() for g in bucket]))
            bucket, held = [], 0
    if bucket:
        buckets.append((torch.cat(bucket), [g.numel() for g in bucket]))
    n, grads = dist.get_world_size(), []
    for i, (flat, sizes) in enumerate(buckets):
        if i < len(works):
            works[i].wait()
        grads += list((flat / n).split(sizes))
    return grads[::-1]
