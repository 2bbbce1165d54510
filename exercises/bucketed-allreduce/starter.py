"""Bucketed gradient all-reduce: average every gradient over the ranks, in place, with one
all_reduce per bucket of the greedy packing (the statement defines it).

分桶的梯度 all-reduce：把每个梯度原地替换为各 rank 的平均值，按贪心装桶每个桶调用一次 all_reduce。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test bucketed-allreduce [FILE]
"""

import torch
import torch.distributed as dist


def sync_grads(grads, bucket_bytes):
    """Afterwards every tensor in grads holds its mean over all ranks (每个梯度最终为各 rank 的平均值)."""
    n = dist.get_world_size()
    # TODO: walk grads in order: a gradient joins the open bucket if the bucket's bytes plus its
    #       own (g.numel() * g.element_size()) stay <= bucket_bytes, else it opens a new bucket.
    # TODO: per bucket: flat = torch.cat of the gradients' g.reshape(-1); dist.all_reduce(flat)
    #       (async_op=True is allowed); divide by n; copy each slice back with g.copy_(...).
    # 待完成：按顺序贪心装桶；每个桶拼成一个扁平张量做一次 all_reduce，除以 n，再把各段拷回梯度。
