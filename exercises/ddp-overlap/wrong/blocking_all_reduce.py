# expect: too_slow
# Mistake: a blocking all_reduce per bucket. Each bucket is reduced as soon as it is full, but
# without async_op=True the rank waits for it before it asks backward for the next gradient,
# so every bucket's all-reduce stalls the backward.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    out, bucket, held, seen = [], [], 0, 0
    for g in backward():
        bucket.append(g)
        held += g.numel() * g.element_size()
        seen += 1
        if held >= bucket_bytes or seen == n_layers:
            flat = torch.cat(bucket)
            dist.all_reduce(flat)
            out += list((flat / dist.get_world_size()).split([x.numel() for x in bucket]))
            bucket, held = [], 0
    return out[::-1]
