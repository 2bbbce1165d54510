# expect: wrong_answer
# Mistake: returns the means in the order backward yielded them (layer L − 1 first), not in
# layer order.
import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    works, buckets, bucket, held, seen = [], [], [], 0, 0
    for g in backward():
        bucket.append(g)
        held += g.numel() * g.element_size()
        seen += 1
        if held >= bucket_bytes or seen == n_layers:
            flat = torch.cat(bucket)
            works.append(dist.all_reduce(flat, async_op=True))
            buckets.append((flat, [x.numel() for x in bucket]))
            bucket, held = [], 0
    out = []
    for work, (flat, sizes) in zip(works, buckets):
        work.wait()
        out += list((flat / dist.get_world_size()).split(sizes))
    return out
