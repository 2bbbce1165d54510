"""Trusted grading code for tree-reduce: inputs, the sum on dst, the bound, diagnosis."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import refined

#: the bits a sum of whole contributions takes on the low bits' 1/64 grid: below 3 · 4**8 / 3
#: = 2**16 times 2**e, 16 + 6 bits
SUM_BITS = 22


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Element i of rank r is ±2**e_i · (4**r + f), sign and e_i random per element and f
    random low bits below 1/64 (``pieces.refined``: none in float32 past 2, 31 in float64, as
    many as keep every sum of whole contributions, each counted up to 3 times, exact): rank r's
    contribution sits alone in bits 2r..2r+1 of the sum's scaled value, rounded, so a wrong sum
    says whose contribution is missing or doubled, and a float64 case's values are more than
    float32 holds."""
    n = case["numel"]
    base = [rng.choice((1, -1)) * 2.0 ** rng.randint(-6, 6) for _ in range(n)]
    return [{"shape": [n], "dtype": case.dtype,
             "data": [b * (4 ** r + f) for b, f in
                      zip(base, refined([0.0] * n, 1 / 64, 0, SUM_BITS, case.dtype, rng),
                          strict=True)]}
            for r in range(case.world)]


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example, the sample case: element i of rank r is 2**i · 10**r, so the
    sum's decimal digits count each rank's contribution (8 ranks: dst ends with 11111111,
    22222222, …; a 0 digit is a missing rank, a 2 one counted twice). Exact in float32: every
    partial sum is a power of two times an integer below 2**24."""
    n = case["numel"]
    return [{"shape": [n], "dtype": case.dtype, "data": [2.0 ** i * 10 ** r for i in range(n)]}
            for r in range(case.world)]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """dst holds the element-wise sum of every rank's t; every other rank's t is unchanged."""
    dst, n = case["dst"], case["numel"]
    total = [sum(inp["data"][i] for inp in inputs) for i in range(n)]
    return [{"shape": [n], "dtype": case.dtype,
             "data": list(total) if r == dst else list(inputs[r]["data"])}
            for r in range(case.world)]


def bytes_bound(case: Case) -> int:
    """Each rank other than dst sends the whole tensor (its partial sum) once."""
    return case["numel"] * case.itemsize


def _counts(world: int, inputs: list[dict[str, Any]], index: int, got: float) -> list[int] | None:
    """How many times (0 to base − 1) each rank's element ``index`` is in ``got``, when ``got``
    is a sum of whole contributions (rank r's is ±2**e · (base**r + its low bits): base 4 in
    the drawn cases, 10 in the sample, whose values have no low bits)."""
    column = [i["data"][index] for i in inputs]
    one = math.copysign(2.0 ** (math.frexp(column[0])[1] - 1), column[0]) if column[0] else 0.0
    if not one:
        return None
    base = round(column[1] / one) if world > 1 else 4
    scaled = got / one
    if not math.isfinite(scaled) or not 0 <= round(scaled) < base ** world:
        return None
    counts = [round(scaled) // base ** r % base for r in range(world)]
    return counts if got == math.fsum(c * x for c, x in zip(counts, column, strict=True)) else None


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the ranks whose contribution is missing from dst's element, or counted twice."""
    dst = case["dst"]
    if rank != dst:
        return ("only dst's t may change: keep partial sums in a buffer of your own",
                "只有 dst 的 t 可以改变：部分和请放在你自己的缓冲区里")
    counts = _counts(case.world, inputs, index, got)
    if counts is None:
        return None
    missing = [r for r, c in enumerate(counts) if c == 0]
    extra = [r for r, c in enumerate(counts) if c > 1]
    en, zh = [], []
    if missing:
        ranks = ", ".join(map(str, missing))
        en.append(f"the sum lacks the contribution of rank(s) {ranks}")
        zh.append(f"和中缺少 rank {ranks} 的贡献")
    if extra:
        ranks = ", ".join(map(str, extra))
        en.append(f"the contribution of rank(s) {ranks} is counted more than once")
        zh.append(f"rank {ranks} 的贡献被重复计入")
    return ("; ".join(en), "；".join(zh)) if en else None
