"""Trusted grading code for sequence-parallel: each rank's rows of x and shards of W1 and W2,
the layer norm of the block's output on each rank's rows, the bound, and which step a wrong
element missed."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.contract.protocol import TensorData
from cjudge.kit.case import Case
from cjudge.kit.mlp import Shards, draw, mlp_output, mlp_partial, shards_of
from cjudge.kit.pieces import matrix, mistaken_for, tensor2d

EPS = 1e-5


def _norm(rows: list[list[float]], unbiased: bool = False) -> list[list[float]]:
    """F.layer_norm over each row (no weight or bias, eps 1e-5)."""
    out = []
    for row in rows:
        mean = math.fsum(row) / len(row)
        var = math.fsum((v - mean) ** 2 for v in row) / (len(row) - unbiased)
        out.append([(v - mean) / math.sqrt(var + EPS) for v in row])
    return out


def _dims(case: Case) -> tuple[int, int, int]:
    """s, d and s/n."""
    s, d = case["seq"], case["hidden"]
    if s % case.world:
        raise ValueError(f"seq = {s} is not a multiple of the world size {case.world}")
    return s, d, s // case.world


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """The whole x (s × d, multiples of 1/4 below 2), each rank given its s/n rows, and each
    rank's shards of W1 and W2."""
    s, _, local = _dims(case)
    x, shards = draw(case, s, rng)
    return [{"call": [tensor2d(x[r * local:(r + 1) * local], case.dtype), w1, w2]}
            for r, (w1, w2) in enumerate(shards)]


def _parts(inputs: list[dict[str, Any]]
           ) -> tuple[list[list[float]], list[Shards]]:
    """The whole x, and every rank's shards."""
    return ([row for i in inputs for row in matrix(i["call"][0])],
            shards_of(inputs))


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[TensorData]:
    """Rank r returns rows r·s/n … of layer_norm(gelu(x·W1)·W2): s/n × d."""
    _, _, local = _dims(case)
    x, shards = _parts(inputs)
    out = _norm(mlp_output(x, shards))
    return [tensor2d(out[r * local:(r + 1) * local], case.dtype) for r in range(case.world)]


def bytes_bound(case: Case) -> int:
    """An all-gather of x and a reduce-scatter of the output: (n−1)/n · s·d elements each."""
    s, d, _ = _dims(case)
    return 2 * (case.world - 1) * s * d * case.itemsize // case.world


def needs(case: Case, inputs: list[dict[str, Any]], rank: int,
          calls: list[dict[str, Any]]) -> tuple[str, str]:
    """What the ranks needed: their own rows of the summed output, a reduce-scatter."""
    s, d, local = _dims(case)
    return (f"rank {rank} needs only its {local} rows of the summed output ({local} × {d}): a "
            f"reduce-scatter along the sequence leaves each rank exactly those, (n−1)/n of "
            f"{s} × {d} sent; an all-reduce sends twice that, and keeps the whole {s} × {d} "
            "activation on every rank",
            f"rank {rank} 只需要求和后输出中自己的 {local} 行（{local} × {d}）：沿序列做 "
            f"reduce-scatter 恰好让每个 rank 得到这些行，发送 {s} × {d} 的 (n−1)/n；all-reduce "
            f"要发送两倍，而且每个 rank 都保留完整的 {s} × {d} 激活")


def diagnose_shape(case: Case, rank: int, shape: list[int], path: str) -> tuple[str, str] | None:
    """The whole sequence's rows: the activation sequence parallelism shards."""
    s, d, local = _dims(case)
    if shape != [s, d] or case.world == 1:
        return None
    return (f"all {s} rows of the sequence; each rank keeps only its own {local} rows after the "
            "reduce-scatter and normalizes those: the activation memory sequence parallelism saves",
            f"这是序列的全部 {s} 行；reduce-scatter 之后每个 rank 只保留并归一化自己的 {local} 行："
            "这正是序列并行省下的激活内存")


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say what the element is instead: the output without the layer norm, the norm of this
    rank's partial output or of each partial before the sum, another row, the unbiased
    variance."""
    _, d, local = _dims(case)
    x, shards = _parts(inputs)
    i, j = divmod(index, d)
    row = rank * local + i
    y = mlp_output(x, shards)
    out = _norm(y)
    want = out[row][j]
    where, where_zh = f"row {row} of the sequence, column {j}", f"序列第 {row} 行第 {j} 列"

    def near(v: float) -> bool:
        return mistaken_for(got, v, want)

    if near(y[row][j]):
        return (f"{where} is the block's output before the layer norm: normalize your rows "
                "(F.layer_norm over the last dimension)",
                f"{where_zh}是层归一化之前的输出：要对你的行做归一化（在最后一维上 F.layer_norm）")
    if case.world > 1 and near(_norm(mlp_partial(x, *shards[rank]))[row][j]):
        return (f"{where} is the layer norm of this rank's partial output alone: reduce-scatter "
                "the partial outputs (their sum) first",
                f"{where_zh}只是本 rank 部分输出的层归一化：先对部分输出做 reduce-scatter（求和）")
    normed = [_norm(mlp_partial(x, w1, w2)) for w1, w2 in shards]
    if case.world > 1 and near(math.fsum(p[row][j] for p in normed)):
        return (f"{where} is the sum of the layer norms of the {case.world} partial outputs: the norm "
                "is not linear; reduce-scatter first, then normalize the sum",
                f"{where_zh}是 {case.world} 个部分输出各自层归一化后的和：归一化不是线性的；"
                "先 reduce-scatter，再对和做归一化")
    if near(_norm(y, unbiased=True)[row][j]):
        return (f"{where} uses the unbiased variance (over d − 1); layer norm divides by d",
                f"{where_zh}用了无偏方差（除以 d − 1）；层归一化除以 d")
    other = next((k for k in range(len(out)) if k != row and near(out[k][j])), None)
    if other is not None:
        return (f"{where} holds row {other} (rank {other // local}'s): rank r keeps rows "
                f"r·s/n … (r+1)·s/n − 1, the reduce-scatter's shard r",
                f"{where_zh}放的是第 {other} 行（rank {other // local} 的）：rank r 保留第 "
                "r·s/n … (r+1)·s/n − 1 行，即 reduce-scatter 的第 r 个分片")
    return None
