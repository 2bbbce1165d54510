"""All-reduce = reduce-scatter + all-gather: sum t over all ranks, in place, using only
dist.reduce_scatter_tensor and dist.all_gather_into_tensor.

all-reduce = reduce-scatter + all-gather：只用这两个集合通信，把 t 在所有 rank 上求和并原地写回。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test allreduce-compose [FILE]
"""

import torch
import torch.distributed as dist


def all_reduce(t):
    """Afterwards t holds the elementwise sum over all ranks (t 最终为所有 rank 的逐元素和)."""
    n = dist.get_world_size()
    size = -(-t.numel() // n)  # ceil(N / n)
    # TODO: copy t into a zero-padded tensor of n * size elements, reduce-scatter it into a
    #       shard of `size` elements, all-gather the shards back, and copy the first N into t.
    # 待完成：补零到 n * size 个元素，reduce-scatter 得到一段，再 all-gather 回来，写回 t。
