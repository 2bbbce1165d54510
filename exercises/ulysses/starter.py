"""Ulysses sequence parallelism: switch a sequence-sharded [s/n, H, D] tensor to a head-sharded
[s, H/n, D] one and back, with one all_to_all_single each way.

Ulysses 序列并行：用一次 all_to_all_single 把按序列切分的 [s/n, H, D] 张量换成按头切分的
[s, H/n, D] 张量，再用一次换回来。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test ulysses [FILE]
"""

import torch
import torch.distributed as dist


def seq_to_heads(x):
    """[s/n, H, D] -> [s, H/n, D]: every position, heads rank*H/n ... (rank+1)*H/n - 1.
    （所有序列位置，本 rank 的 H/n 个头）"""
    n = dist.get_world_size()
    local, heads, dim = x.shape
    # TODO: arrange x so that block p (of s/n * H/n * D elements) holds rank p's heads,
    #       make it contiguous, exchange it with dist.all_to_all_single, then reshape.
    # 待完成：重排 x，使第 p 块是 rank p 的头，变为连续后用 all_to_all_single 交换，再变形。
    return torch.zeros(local * n, heads // n, dim, dtype=x.dtype)


def heads_to_seq(y):
    """[s, H/n, D] -> [s/n, H, D], the inverse of seq_to_heads (seq_to_heads 的逆）."""
    n = dist.get_world_size()
    s, mine, dim = y.shape
    # TODO: exchange blocks of s/n positions with dist.all_to_all_single, then put the heads
    #       that came from rank j at heads j*H/n ... (j+1)*H/n - 1.
    # 待完成：用 all_to_all_single 交换每块 s/n 个位置，再把来自 rank j 的头放回第 j 组。
    return torch.zeros(s // n, mine * n, dim, dtype=y.dtype)
