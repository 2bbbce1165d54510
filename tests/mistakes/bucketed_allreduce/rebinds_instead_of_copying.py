# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: every collective call matched the reference's; (rank 0 through its all_reduce at line 24)
# names: the all-reduced bucket was never copied back into the gradient tensors
# names_zh: all-reduce 之后的桶没有拷回梯度张量
# Puts views of the flat buffer into the bucket list: the caller's gradients are never written.
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
        at = 0
        for i, g in enumerate(bucket):
            bucket[i] = flat[at:at + g.numel()].view_as(g)
            at += g.numel()
