"""Trusted grading code for tree-broadcast: inputs, src's tensor everywhere, bound, diagnosis."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.families import distinct_values


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Every rank's N distinct values, exact in its dtype, so each can be traced to its rank."""
    n = case["numel"]
    values = distinct_values(case.world * n, case.dtype, rng)
    return [{"shape": [n], "dtype": case.dtype, "data": values[r * n:(r + 1) * n]}
            for r in range(case.world)]


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example, the sample case: rank r holds [10r+1, 10r+2, …], so each value
    names the rank it came from (no rank holds 0, which an empty buffer would hold)."""
    n = case["numel"]
    return [{"shape": [n], "dtype": case.dtype, "data": [10.0 * r + i + 1 for i in range(n)]}
            for r in range(case.world)]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every rank ends with rank src's tensor."""
    src = inputs[case["src"]]
    return [{"shape": list(src["shape"]), "dtype": src["dtype"], "data": list(src["data"])}
            for _ in inputs]


def bytes_bound(case: Case) -> int:
    """A binomial tree: the root sends the whole tensor once per round, ⌈log₂n⌉ times."""
    return math.ceil(math.log2(case.world)) * case["numel"] * case.itemsize


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say whose tensor the element came from, when it is not src's."""
    src = case["src"]
    for r, inp in enumerate(inputs):
        if got in inp["data"]:
            if r == rank:
                return (f"the element is still this rank's own input: nothing from src = {src} "
                        "reached it", f"该元素仍是本 rank 的输入：没有收到 src = {src} 的数据")
            return (f"the element is rank {r}'s (its element {inp['data'].index(got)}), but the "
                    f"root is src = {src}",
                    f"该元素来自 rank {r}（它的第 {inp['data'].index(got)} 个元素），但根是 src = {src}")
    return None
