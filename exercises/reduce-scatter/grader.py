"""Trusted grading code for reduce-scatter: inputs, each rank's summed shard, bound, diagnosis."""

from __future__ import annotations

import math
from typing import Any

from cjudge.contract.protocol import TraceEvent
from cjudge.kit import pieces
from cjudge.kit.case import Case, MessageReader
from cjudge.kit.families import ShardedSum, blocks_to_others
from cjudge.kit.pieces import chunk_reader as sum_reader
from cjudge.kit.pieces import contributions

#: exact inputs of n shards, the statement's example whose digits count the ranks, shard r of
#: the sum on rank r
REDUCE_SCATTER = ShardedSum("m")
make_inputs = REDUCE_SCATTER.make_inputs
example_inputs = REDUCE_SCATTER.example_inputs
expected = REDUCE_SCATTER.expected


def bytes_bound(case: Case) -> int:
    """The ring: n−1 shards of m elements per rank."""
    return blocks_to_others(case, "m") * case.itemsize


def needs(case: Case, inputs: list[dict[str, Any]], rank: int,
          calls: list[TraceEvent]) -> tuple[str, str] | None:
    """Over budget: rank p needs only shard p of the rank's x (m elements)."""
    return pieces.blocks_needed(case, rank, calls, ("x", "x"), block="m")


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the shard the value belongs to, or the rank whose contribution is missing or doubled."""
    m = case["m"]
    at = rank * m + index
    for shard in range(case.world):
        if shard != rank and got == math.fsum(i["data"][shard * m + index] for i in inputs):
            return (f"this is element {index} of shard {shard}'s sum: rank {rank} must return "
                    f"shard {rank} (elements {rank * m}…{rank * m + m - 1} of the sum)",
                    f"这是第 {shard} 段之和的第 {index} 个元素：rank {rank} 应返回第 {rank} 段"
                    f"（和的第 {rank * m}…{rank * m + m - 1} 个元素）")
    return contributions(got, [i["data"][at] for i in inputs], f"shard {rank}", f"第 {rank} 段")


def chunk_reader(case: Case, inputs: list[dict[str, Any]]) -> MessageReader:
    """Which shard a message carries and whose contributions it sums (the trace view)."""
    m = case["m"]
    return sum_reader(inputs, [(r * m, (r + 1) * m) for r in range(case.world)], ("shard", "段"))


def smaller_cases(case: Case) -> list[tuple[int, dict[str, Any]]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, shorter shards."""
    return pieces.smaller_cases(case, "m")
