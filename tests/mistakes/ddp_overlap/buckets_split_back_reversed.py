# expect: wrong_answer
# gloo: wrong on sample-4-ranks-6-layers
# names: every collective call matched the reference's
# names: split back in reverse order; copy them back in the order they were concatenated
# names_zh: 顺序颠倒; 请按拼接时的顺序拷回
# Reverses each bucket's pieces and then the whole list: the layers of a bucket come back
# in reverse order (the return was in layer order already).
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    """The mean over the ranks of every layer's gradient, in layer order."""
    works, buckets, bucket, held, seen = [], [], [], 0, 0
    for g in backward():  # layer n_layers − 1 first
        bucket.append(g)
        held += g.numel() * g.element_size()
        seen += 1
        if held >= bucket_bytes or seen == n_layers:  # full, or the last gradient
            flat = torch.cat(bucket)
            works.append(dist.all_reduce(flat, async_op=True))  # reduced while backward goes on
            buckets.append((flat, [g.numel() for g in bucket]))
            bucket, held = [], 0
    n, grads = dist.get_world_size(), []
    for work, (flat, sizes) in zip(works, buckets, strict=True):
        work.wait()
        grads += list((flat / n).split(sizes))[::-1]  # each bucket put in layer order, twice
    return grads[::-1]
