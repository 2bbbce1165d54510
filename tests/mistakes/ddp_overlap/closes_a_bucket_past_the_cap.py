# expect: over_budget
# gloo: right on sample-4-ranks-6-layers
# names: yours close only once they hold more than
# names: reduce a bucket as soon as it holds at least that many (>=, not >)
# names_zh: 你的桶要超过
# names_zh: 用 >=，不是 >
# Closes a bucket only when it holds more than bucket_bytes: a bucket that is exactly full waits
# for one more gradient, so the buckets hold more layers, and fewer of them, than DDP's.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    works, buckets, bucket, held, seen = [], [], [], 0, 0
    for g in backward():
        bucket.append(g)
        held += g.numel() * g.element_size()
        seen += 1
        if held > bucket_bytes or seen == n_layers:
            flat = torch.cat(bucket)
            works.append(dist.all_reduce(flat, async_op=True))
            buckets.append((flat, [g.numel() for g in bucket]))
            bucket, held = [], 0
    n, grads = dist.get_world_size(), []
    for work, (flat, sizes) in zip(works, buckets, strict=True):
        work.wait()
        grads += list((flat / n).split(sizes))
    return grads[::-1]
