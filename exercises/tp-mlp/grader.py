"""Trusted grading code for tp-mlp: x and each rank's shards of W1 and W2, the MLP's output, the
bound, and which part of the block a wrong element missed."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.exercise import special
from cjudge.kit.case import Case
from cjudge.kit.mlp import Shards, draw, gelu, mlp_output, mlp_partial, shards_of
from cjudge.kit.pieces import matrix, mistaken_for, tensor2d


def _tanh_gelu(v: float) -> float:
    return 0.5 * v * (1 + special.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """The same x (b × d, multiples of 1/4 below 2) on every rank, and each rank's shards."""
    rows, shards = draw(case, case["tokens"], rng)
    x = tensor2d(rows, case.dtype)
    return [{"call": [dict(x), w1, w2]} for w1, w2 in shards]


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example: n = 2, b = d = 2, f = 4."""
    dtype = case.dtype
    x = tensor2d([[1.0, 2.0], [-1.0, 0.0]], dtype)
    w1 = [[[1.0, 0.0], [0.0, 1.0]], [[2.0, -1.0], [0.0, 1.0]]]
    w2 = [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, -1.0]]]
    return [{"call": [dict(x), tensor2d(a, dtype), tensor2d(c, dtype)]}
            for a, c in zip(w1, w2, strict=True)]


def _parts(inputs: list[dict[str, Any]]
           ) -> tuple[list[list[float]], list[Shards]]:
    return matrix(inputs[0]["call"][0]), shards_of(inputs)


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every rank returns y = gelu(x·W1)·W2, b × d."""
    x, shards = _parts(inputs)
    y = tensor2d(mlp_output(x, shards), case.dtype)
    return [dict(y) for _ in range(case.world)]


def bytes_bound(case: Case) -> int:
    """One all-reduce of y: 2(n−1)/n · b·d elements."""
    return 2 * (case.world - 1) * case["tokens"] * case["hidden"] * case.itemsize // case.world


def needs(case: Case, inputs: list[dict[str, Any]], rank: int,
          calls: list[dict[str, Any]]) -> tuple[str, str]:
    """What the ranks needed: the sum of the partial outputs, not the intermediate."""
    b, d, f = case["tokens"], case["hidden"], case["ffn"]
    return (f"every rank needs only the sum of the {case.world} partial outputs gelu(x·W1_r)·W2_r "
            f"({b} × {d}): one all-reduce; the intermediate gelu(x·W1) ({b} × {f}) and W2 "
            f"({f} × {d}) never have to travel",
            f"每个 rank 只需要 {case.world} 个部分输出 gelu(x·W1_r)·W2_r（{b} × {d}）之和：一次 "
            f"all-reduce；中间结果 gelu(x·W1)（{b} × {f}）和 W2（{f} × {d}）都不必传输")


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say what the element is instead of y: this rank's partial output, y without the gelu,
    the gelu applied after the second matmul, the tanh approximation."""
    x, shards = _parts(inputs)
    d = case["hidden"]
    i, j = divmod(index, d)
    want = mlp_output(x, shards)[i][j]
    where, where_zh = f"y[{i}][{j}]", f"y[{i}][{j}]"

    def near(v: float) -> bool:
        return mistaken_for(got, v, want)

    if case.world > 1 and near(mlp_partial(x, *shards[rank])[i][j]):
        return (f"{where} is only this rank's partial output gelu(x·W1_{rank})·W2_{rank}: "
                "all-reduce the partial outputs (sum) to get y",
                f"{where_zh} 只是本 rank 的部分输出 gelu(x·W1_{rank})·W2_{rank}：要对各部分输出做 "
                "all-reduce（求和）才得到 y")
    linear = mlp_output(x, shards, act=lambda v: v)[i][j]
    if near(gelu(linear)):
        return (f"{where} is gelu(x·W1·W2): the gelu goes between the two matmuls, on each rank's "
                "columns of x·W1, before the second matmul and the all-reduce",
                f"{where_zh} 是 gelu(x·W1·W2)：gelu 应在两次矩阵乘之间，作用于每个 rank 的 x·W1 "
                "列上，在第二次矩阵乘和 all-reduce 之前")
    if near(linear):
        return (f"{where} is x·W1·W2: the gelu is missing", f"{where_zh} 是 x·W1·W2：缺少 gelu")
    if near(mlp_output(x, shards, act=_tanh_gelu)[i][j]):
        return (f"{where} uses gelu's tanh approximation; the exact gelu (F.gelu's default, "
                "approximate='none') is expected",
                f"{where_zh} 用了 gelu 的 tanh 近似；应使用精确的 gelu（F.gelu 的默认值，"
                "approximate='none'）")
    return None
