"""All-reduce for small messages: sum t over all ranks, in place, by recursive doubling
(log2(n) steps), using only point-to-point communication.

小消息 all-reduce：用递归倍增（log2(n) 步），只用点对点通信，把 t 求和并原地写回。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test allreduce-small [FILE]
"""

import torch
import torch.distributed as dist


def all_reduce(t):
    """Afterwards t holds the elementwise sum over all ranks (t 最终为所有 rank 的逐元素和)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    p = 1 << (n.bit_length() - 1)  # the largest power of two <= n
    buf = torch.empty_like(t)
    # TODO: ranks p..n-1 send t to rank - p and later receive the sum from it.
    # TODO: for mask = 1, 2, 4, ... < p: exchange t with rank ^ mask (isend + irecv), add.
    # TODO: send the sum back to rank + p if that rank exists.
    # 待完成：折叠多余的 rank；按 mask = 1, 2, 4, ... 与 rank ^ mask 交换并累加；把结果发回。
