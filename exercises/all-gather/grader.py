"""Trusted grading code for all-gather: inputs, the concatenation, bound, diagnosis."""

from __future__ import annotations

from typing import Any

from cjudge.kit import pieces
from cjudge.kit.case import Case, MessageReader
from cjudge.kit.families import Gather, blocks_to_others
from cjudge.kit.pieces import block_reader

#: distinct inputs traced to their rank, the statement's example, every block on every rank
ALL_GATHER = Gather("m")
make_inputs = ALL_GATHER.make_inputs
example_inputs = ALL_GATHER.example_inputs
chunk_of = ALL_GATHER.chunk_of
expected = ALL_GATHER.expected


def bytes_bound(case: Case) -> int:
    """Each rank's block must reach n−1 others; on a ring each rank forwards n−1 blocks."""
    return blocks_to_others(case, "m") * case.itemsize


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say whose element was found in the block where another rank's was expected."""
    m = case["m"]
    block, i = divmod(index, m)
    for r, inp in enumerate(inputs):
        if got in inp["data"]:
            j = inp["data"].index(got)
            return (f"block {block} should be rank {block}'s x, but element {i} of it is rank "
                    f"{r}'s element {j}",
                    f"第 {block} 块应为 rank {block} 的 x，但其第 {i} 个元素是 rank {r} 的第 {j} 个元素")
    return (f"block {block} should be rank {block}'s x, but element {i} of it is no rank's "
            "input: was this block ever received?",
            f"第 {block} 块应为 rank {block} 的 x，但其第 {i} 个元素不是任何 rank 的输入：这一块收到过吗？")


def chunk_reader(case: Case, inputs: list[dict[str, Any]]) -> MessageReader:
    """Whose block a message carries (the trace view: each rank's output filling in)."""
    return block_reader(inputs)


def smaller_cases(case: Case) -> list[tuple[int, dict[str, Any]]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, shorter blocks."""
    return pieces.smaller_cases(case, "m")
