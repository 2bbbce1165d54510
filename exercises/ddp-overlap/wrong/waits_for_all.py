# expect: too_slow
# Mistake: no overlap. The rank collects every gradient first and only then all-reduces the
# buckets: all the compute, then every bucket's all-reduce, one after another.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    grads = list(backward())  # layer n_layers − 1 first
    buckets, bucket, held = [], [], 0
    for i, g in enumerate(grads):
        bucket.append(g)
        held += g.numel() * g.element_size()
        if held >= bucket_bytes or i == n_layers - 1:
            buckets.append(bucket)
            bucket, held = [], 0
    out = []
    for bucket in buckets:
        flat = torch.cat(bucket)
        dist.all_reduce(flat)
        out += list((flat / dist.get_world_size()).split([g.numel() for g in bucket]))
    return out[::-1]
