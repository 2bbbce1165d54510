"""Trusted grading code for allreduce-rabenseifner: inputs, the sum, bound, diagnosis."""

from __future__ import annotations

import math
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.families import SumToAll, ring_allreduce_bytes
from cjudge.kit.pieces import contributions

#: exact inputs, the statement's example whose digits count the ranks, every rank the sum
ALL_REDUCE = SumToAll("numel")
make_inputs = ALL_REDUCE.make_inputs
example_inputs = ALL_REDUCE.example_inputs
expected = ALL_REDUCE.expected

#: the ring's volume with room for uneven blocks: n−1 blocks of at most ⌈N/n⌉ elements
#: in each phase
bytes_bound = ring_allreduce_bytes


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the block of the index, and the ranks whose contribution is missing or doubled."""
    numel = case["numel"]
    block = next(b for b in range(case.world) if index < (b + 1) * numel // case.world)
    parts = [i["data"][index] for i in inputs]
    if got == parts[rank] and got != math.fsum(parts):
        return (f"the element (block {block}, reduced on rank {block}) still holds this rank's "
                "own input: it was never reduced or never gathered",
                f"该元素（第 {block} 块，在 rank {block} 上归约）仍是本 rank 的输入：没有归约或没有收集")
    return contributions(got, parts, f"block {block} (reduced on rank {block})",
                         f"第 {block} 块（在 rank {block} 上归约）")
