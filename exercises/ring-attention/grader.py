"""Trusted grading code for ring-attention: each rank's block of queries, keys and values, the
judge's ``scores`` function, full attention in float64, bounds, and which blocks an output
row is made of.

Inputs are drawn from [-2, 2] with every bit of the case dtype's mantissa, so a down-cast
(float64 sent as float32) or a narrow encoding loses digits the tolerance sees: a wrong answer,
never a cheaper one. A case with a ``spread`` (scores past float32's exp) draws multiples of 1/8
instead (the queries times the spread), so its scores are exact in float32; its keys and values,
which travel, add low bits below 1/8 that keep them so (``pieces.refined``). A correct online
softmax is within rounding of full attention, far inside the tolerance; an output that leaves
out a block, or merges blocks without rescaling, is off by a large fraction of the values.
"""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import refined
from cjudge.switch import functions
from cjudge.switch.reduce import values_of


def _block(case: Case, rng: random.Random, spread: int = 1, headroom: int | None = None) -> dict[str, Any]:
    """A (block, dim) tensor: full mantissa, or in a case with a spread, multiples of spread/8
    up to 2·spread that keep the scores exact, with low bits below them (``pieces.refined``)
    where ``headroom`` says how many bits what is computed from them needs."""
    b, d = case["block"], case["dim"]
    if case.sizes.get("spread", 1) == 1:  # full mantissa, rounded to the case's dtype
        data = values_of(functions.pack([rng.uniform(-2, 2) for _ in range(b * d)], case.dtype),
                         case.dtype) or []
    else:
        data = [rng.randint(-16, 16) / 8 * spread for _ in range(b * d)]
        if headroom is not None:
            data = refined(data, spread / 8, 5, headroom, case.dtype, rng)
    return {"shape": [b, d], "dtype": case.dtype, "data": data}


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Rank r: the judge's ``scores`` and its block of queries, keys and values, (b, d) each."""
    d = case["dim"]
    scores = {"fn": "scores", "params": {"dim": d, "scale": 1 / math.sqrt(d),
                                         "unit": case["block"] * d, "label": "scores"}}
    spread = case.sizes.get("spread", 1)
    inputs = []
    for _ in range(case.world):
        # the keys and values travel: their low bits leave the scores (a query's 5 bits, a
        # sum of d products) exact; the values feed only the softmax's weighted sum
        q, k, v = (_block(case, rng, spread), _block(case, rng, headroom=5 + d.bit_length()),
                   _block(case, rng, headroom=0))
        if spread > 1:
            _pin_overflow(q, k, rng, spread)
        inputs.append({"call": [scores, q, k, v]})
    return inputs


def _pin_overflow(q: dict[str, Any], k: dict[str, Any], rng: random.Random, spread: int) -> None:
    """Set one random row of ``q`` and one of ``k`` to ±2·spread and ±2 with the same signs:
    their score, 4·spread·√d (256 at d = 4, spread 32), overflows float32's exp (past 88.7) in
    every draw, so a softmax without the running max fails whatever else is drawn."""
    b, d = q["shape"]
    i, j = rng.randrange(b), rng.randrange(b)
    for c in range(d):
        sign = rng.choice((-1, 1))
        q["data"][i * d + c] = 2 * spread * sign
        k["data"][j * d + c] = 2 * sign


def _rows(t: dict[str, Any]) -> list[list[float]]:
    d = t["shape"][1]
    return [t["data"][i:i + d] for i in range(0, len(t["data"]), d)]


def _attention(q: dict[str, Any], blocks: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[float]:
    """softmax(q·Kᵀ/√d)·V in float64 over the given (k, v) blocks, flattened."""
    d = q["shape"][1]
    keys = [row for k, _ in blocks for row in _rows(k)]
    vals = [row for _, v in blocks for row in _rows(v)]
    out: list[float] = []
    for row in _rows(q):
        s = [math.fsum(a * b for a, b in zip(row, key, strict=True)) / math.sqrt(d)
             for key in keys]
        top = max(s)
        w = [math.exp(x - top) for x in s]
        total = math.fsum(w)
        out += [math.fsum(wi * val[j] for wi, val in zip(w, vals, strict=True)) / total
                for j in range(d)]
    return out


def _kv(inputs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(i["call"][2], i["call"][3]) for i in inputs]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank r returns attention of its queries over all n blocks of keys and values."""
    kv = _kv(inputs)
    return [{"shape": list(i["call"][1]["shape"]), "dtype": case.dtype,
             "data": _attention(i["call"][1], kv)} for i in inputs]


def bytes_bound(case: Case) -> int:
    """n − 1 steps of one block of keys and one of values: 2(n − 1)·b·d elements."""
    return 2 * (case.world - 1) * case["block"] * case["dim"] * case.itemsize


def check_computes(case: Case, inputs: list[dict[str, Any]],
                   computes: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Rank r scored its own queries against each of the n blocks of keys, once each, one
    block per call (the judge's ``scores``, charged per block)."""
    dtype = case.dtype

    def digest(t: dict[str, Any]) -> str:
        return functions.digest(functions.pack(t["data"], dtype))

    keys = {digest(i["call"][2]): j for j, i in enumerate(inputs)}
    for rank, i in enumerate(inputs):
        calls = [c for c in computes if c["rank"] == rank and c["name"] == "scores"]
        mine = digest(i["call"][1])
        got = sorted(keys.get(c["input"], -1) for c in calls
                     if c.get("inputs", [None])[0] == mine)
        if got != list(range(case.world)) or len(calls) != case.world:
            seen = ", ".join(map(str, sorted(set(got) - {-1})))
            on = f", on the key blocks of ranks {seen}" if seen else ""
            on_zh = f"，用到的是 rank {seen} 的键块" if seen else ""
            return (f"rank {rank} must call scores(q, k) with its own q and each of the {case.world} "
                    f"blocks of keys once, one block per call (the attention is the work the "
                    f"model charges); it called it {len(calls)} time(s){on}",
                    f"rank {rank} 必须用自己的 q 和 {case.world} 个键块中的每一个各调用一次 "
                    f"scores(q, k)，每次一个块（注意力计算是模型计费的工作）；它调用了 "
                    f"{len(calls)} 次{on_zh}")
    return None


def _merged(row: list[float], blocks: list[tuple[dict[str, Any], dict[str, Any]]],
            rescale_out: bool, rescale_sum: bool) -> list[float]:
    """One query row's online softmax over ``blocks`` in their order, rescaling the running
    output and the running sum by exp(old max − new max) only where told to."""
    d = len(row)
    top, total, acc = -math.inf, 0.0, [0.0] * d
    for k, v in blocks:
        s = [math.fsum(a * b for a, b in zip(row, key, strict=True)) / math.sqrt(d)
             for key in _rows(k)]
        new = max(top, *s)
        w = [math.exp(x - new) for x in s]
        fix = math.exp(top - new)
        total = total * (fix if rescale_sum else 1.0) + math.fsum(w)
        acc = [a * (fix if rescale_out else 1.0) +
               math.fsum(wi * val[j] for wi, val in zip(w, _rows(v), strict=True))
               for j, a in enumerate(acc)]
        top = new
    return [a / total for a in acc]


#: (rescales out, rescales the row sum) -> what a merge that leaves a rescale out did
UNSCALED = {
    (False, True): ("out is never rescaled: when a later block raises a query's running max, "
                    "multiply out by exp(old max − new max) before adding the block's p @ v, as "
                    "you do the row sum",
                    "其中的 out 没有重新缩放：当后来的块抬高了某个查询的当前最大值时，应先把 out 乘以 "
                    "exp(旧最大值 − 新最大值)，再加上该块的 p @ v，就像你对行和所做的那样"),
    (True, False): ("the row sum is never rescaled: when a later block raises a query's running "
                    "max, multiply the row sum by exp(old max − new max) before adding the block's "
                    "terms, as you do out",
                    "其中的行和没有重新缩放：当后来的块抬高了某个查询的当前最大值时，应先把行和乘以 "
                    "exp(旧最大值 − 新最大值)，再加上该块的各项，就像你对 out 所做的那样"),
    (False, False): ("neither out nor the row sum is rescaled: when a later block raises a "
                     "query's running max, multiply both by exp(old max − new max) before adding "
                     "the block's terms",
                     "其中的 out 和行和都没有重新缩放：当后来的块抬高了某个查询的当前最大值时，"
                     "应先把两者都乘以 exp(旧最大值 − 新最大值)，再加上该块的各项"),
}


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Whether the row is attention over its own block only, over all blocks but one, or the
    blocks in the ring's order merged without a rescale of out or of the row sum."""
    kv, q = _kv(inputs), inputs[rank]["call"][1]
    tol = 1e-4 * max(1.0, abs(got))

    def matches(blocks: list[tuple[dict[str, Any], dict[str, Any]]]) -> bool:
        return abs(_attention(q, blocks)[index] - got) <= tol

    if case.world > 1 and matches([kv[rank]]):
        return ("this value is attention over this rank's own block of keys only: the other "
                "blocks never reached it", "该值只是对本 rank 自己的键块做的注意力：其他块没有传到")
    for j in range(case.world):
        if case.world > 2 and matches(kv[:j] + kv[j + 1:]):
            return (f"this value is attention over every block but rank {j}'s: that block of "
                    "keys and values was never merged in (one step short?)",
                    f"该值是对除 rank {j} 之外所有块的注意力：那一块键和值没有合并进来（少了一步？）")
    d = q["shape"][1]
    ring = [kv[(rank - j) % case.world] for j in range(case.world)]  # as they arrive
    for (out, total), (en, zh) in UNSCALED.items():
        if case.world > 1 and \
                abs(_merged(_rows(q)[index // d], ring, out, total)[index % d] - got) <= tol:
            return (f"this value is the blocks' online softmax merged in the ring's order, but {en}",
                    f"该值是按环的顺序合并各块的在线 softmax，但{zh}")
    return None
