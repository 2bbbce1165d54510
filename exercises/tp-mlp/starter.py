"""Megatron's tensor-parallel MLP: y = gelu(x·W1)·W2 with W1 split by columns, W2 by rows.
Megatron 的张量并行 MLP：W1 按列切分，W2 按行切分。

Run the tests: "Run all tests" in the browser, or python practice/judge.py test tp-mlp [FILE]
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F


def mlp(x, w1, w2):
    """x: (b, d), the same on every rank; w1: (d, f/n), this rank's columns of W1; w2: (f/n, d),
    the matching rows of W2. Return y = gelu(x·W1)·W2, (b, d), on every rank.
    x 在每个 rank 上相同；w1 是 W1 的本 rank 列，w2 是 W2 的对应行。每个 rank 返回完整的 y。"""
    # gelu(x @ w1) is this rank's columns of the intermediate: no communication needed there.
    # Its product with w2 is one term of a sum over the ranks...
    return x
