# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's 1st collective call, all_reduce (line 26): its input is the reference's
# names: divided by n = 4: a mean taken before the call (or twice)
# names_zh: all_reduce（第 26 行）：它的输入是参考解的输入除以了 n = 4; 在调用之前（或重复）求了平均
# Each gradient is divided by n before it is packed (to "average" it), and the bucket's sum is
# divided by n again after the all_reduce: the mean of means, n times too small.
import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    """Average every gradient over the ranks, in place, one all_reduce per bucket."""
    n = dist.get_world_size()
    buckets, held = [], 0
    for g in grads:
        nbytes = g.numel() * g.element_size()
        if buckets and held + nbytes <= bucket_bytes:
            buckets[-1].append(g)
            held += nbytes
        else:
            buckets.append([g])
            held = nbytes
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) / n for g in bucket])
        dist.all_reduce(flat)
        flat /= n
        at = 0
        for g in bucket:
            g.copy_(flat[at:at + g.numel()].reshape(g.shape))
            at += g.numel()
