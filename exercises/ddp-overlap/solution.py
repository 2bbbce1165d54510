"""Reference: DDP's overlap. Each gradient joins the open bucket; a full bucket is all-reduced
at once with async_op=True while backward goes on to the next layers; the works are waited for
only after the last gradient, then each bucket's mean is split back into its layers."""

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
        grads += list((flat / n).split(sizes))
    return grads[::-1]  # layer order
