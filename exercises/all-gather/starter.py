"""All-gather: return every rank's x concatenated in rank order, using only point-to-point
communication.

all-gather：只用点对点通信，返回按 rank 顺序拼接的所有 rank 的 x。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test all-gather [FILE]
"""

import torch
import torch.distributed as dist


def all_gather(x):
    """Return a tensor of n*m elements whose block p is rank p's x (第 p 块是 rank p 的 x)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    out = torch.empty(n * x.numel(), dtype=x.dtype)
    blocks = list(out.chunk(n))
    blocks[rank].copy_(x)
    # TODO: n-1 ring steps: send to the right the block you got last (your own at first),
    #       receive the next one from the left straight into its place in `out`.
    # 待完成：n-1 步环形传递：把上一步收到的块（第一步是自己的）发给右边，从左边收下一块。
    return out
