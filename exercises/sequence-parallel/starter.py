"""Sequence parallelism: the tensor-parallel MLP between an all-gather and a reduce-scatter
along the sequence, and the layer norm on this rank's rows only.
序列并行：张量并行 MLP 前后沿序列做 all-gather 与 reduce-scatter，层归一化只作用于本 rank 的行。

Run the tests: "Run all tests" in the browser, or python practice/judge.py test sequence-parallel [FILE]
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F


def sp_mlp(x, w1, w2):
    """x: this rank's s/n rows of the sequence (s/n, d); w1: (d, f/n), its columns of W1; w2:
    (f/n, d), the matching rows of W2. Return this rank's s/n rows of
    layer_norm(gelu(X·W1)·W2), X the whole sequence.
    返回 layer_norm(gelu(X·W1)·W2) 中本 rank 的 s/n 行（X 为完整序列）。"""
    n = dist.get_world_size()
    rows, d = x.shape
    # 1. the column-parallel matmul needs every position: gather the sequence
    # 2. gelu(X @ w1) @ w2 is this rank's term of the sum, for every position
    # 3. the sum, but only for this rank's rows ... then F.layer_norm(..., (d,))
    return x
