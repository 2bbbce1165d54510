"""Trusted grading code for allreduce-compose: inputs, the sum, bound, diagnosis."""

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

#: both halves on a padded tensor of n·⌈N/n⌉ elements: (n−1)·⌈N/n⌉ elements each
bytes_bound = ring_allreduce_bytes


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the shard of the index, and the ranks whose contribution is missing or doubled."""
    shard = index // math.ceil(case["numel"] / case.world)
    parts = [i["data"][index] for i in inputs]
    if got == parts[rank] and got != math.fsum(parts):
        return (f"the element (shard {shard}) still holds this rank's own input: was the result "
                "copied back into t?",
                f"该元素（第 {shard} 段）仍是本 rank 的输入：结果写回 t 了吗？")
    if got == 0 and math.fsum(parts) != 0:
        return (f"the element (shard {shard}) is 0: the padding or an empty buffer, not the sum",
                f"该元素（第 {shard} 段）为 0：是填充或空缓冲区，不是和")
    return contributions(got, parts, f"shard {shard}", f"第 {shard} 段")
