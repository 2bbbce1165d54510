# expect: over_budget
# Mistake: no buckets, one all_reduce per gradient. Correct, and within the byte bound, but the
# call-count rule (check_traffic) makes it over_budget: 5 calls where the greedy packing makes
# 3. (Its modelled time is also over the bound: 100 tensors of 4 KiB on 8 ranks cost
# 100 × 14 × 5 µs ≈ 7 ms against one bucket's ≈ 72 µs.)
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    n = dist.get_world_size()
    for g in grads:
        dist.all_reduce(g)
        g /= n
