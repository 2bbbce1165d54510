# expect: too_slow
# gloo: right on sample-4-ranks-6-layers
# names: line 18: rank 0's all_reduce; wait for the works only after the last gradient
# names_zh: 等到最后一个梯度之后再 wait 所有 work
# Waits for each bucket's all-reduce as soon as it starts: nothing overlaps the backward.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    buckets, bucket, held, seen = [], [], 0, 0
    for g in backward():
        bucket.append(g)
        held += g.numel() * g.element_size()
        seen += 1
        if held >= bucket_bytes or seen == n_layers:
            flat = torch.cat(bucket)
            dist.all_reduce(flat, async_op=True).wait()
            buckets.append((flat, [g.numel() for g in bucket]))
            bucket, held = [], 0
    n, grads = dist.get_world_size(), []
    for flat, sizes in buckets:
        grads += list((flat / n).split(sizes))
    return grads[::-1]
