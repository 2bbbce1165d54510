# expect: over_budget
# Mistake: ignores the buckets and all-reduces every gradient on its own as it comes: overlapped,
# but one all_reduce (2(n − 1) α of latency) per layer instead of per bucket.
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    works, grads = [], []
    for g in backward():
        works.append(dist.all_reduce(g, async_op=True))
        grads.append(g)
    for work in works:
        work.wait()
    return [g / dist.get_world_size() for g in grads[::-1]]
