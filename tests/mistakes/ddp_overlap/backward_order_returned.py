# expect: wrong_answer
# gloo: wrong on sample-4-ranks-6-layers
# names: layer 0's gradient is layer 5's mean: return the gradients in layer order; its all_reduce at line 18
# names_zh: 第 0 层的梯度是第 5 层的平均值; rank 0 通过第 18 行的 all_reduce 收到
# Returns the gradients in the order backward yields them (last layer first).
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
            buckets.append((flat, [g.numel() for g in bucket]))
            bucket, held = [], 0
    n, grads = dist.get_world_size(), []
    for work, (flat, sizes) in zip(works, buckets, strict=True):
        work.wait()
        grads += list((flat / n).split(sizes))
    return grads
