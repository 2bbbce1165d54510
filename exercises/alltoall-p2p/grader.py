"""Trusted grading code for alltoall-p2p: inputs, the exchanged blocks, bound, diagnosis."""

from __future__ import annotations

from typing import Any

from cjudge.contract.protocol import TraceEvent
from cjudge.kit import pieces
from cjudge.kit.case import Case
from cjudge.kit.families import AllToAllBlocks, blocks_to_others

#: rows of n blocks of k distinct values, traced wherever they land; the statement's example
ALL_TO_ALL = AllToAllBlocks("k")
make_inputs = ALL_TO_ALL.make_inputs
example_inputs = ALL_TO_ALL.example_inputs
chunk_of = ALL_TO_ALL.chunk_of


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Block i of rank r's output is block r of rank i's input."""
    return [{"shape": [case.world * case["k"]], "dtype": case.dtype,
             "data": [v for block in blocks for v in block]}
            for blocks in ALL_TO_ALL.received(case, inputs)]


def bytes_bound(case: Case) -> int:
    """Exactly the n−1 blocks meant for the other ranks; a rank's own block stays home."""
    return blocks_to_others(case, "k") * case.itemsize



def needs(case: Case, inputs: list[dict[str, Any]], rank: int,
          calls: list[TraceEvent]) -> tuple[str, str] | None:
    """Over budget: rank p needs only block p of the rank's x."""
    return pieces.blocks_needed(case, rank, calls, ("x", "输入张量 x"))


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say which rank's block was found where another was expected."""
    k = case["k"]
    block, i = divmod(index, k)
    for src, inp in enumerate(inputs):
        if got in inp["data"]:
            b, j = divmod(inp["data"].index(got), k)
            empty = (" or a 0 never overwritten", "，或是从未写入的 0") if got == 0 else ("", "")
            return (f"block {block} should be block {rank} of rank {block}'s x, but element {i} "
                    f"of it is element {j} of block {b} of rank {src}'s x{empty[0]}",
                    f"第 {block} 块应为 rank {block} 的 x 的第 {rank} 块，但其第 {i} 个元素是 "
                    f"rank {src} 的 x 的第 {b} 块的第 {j} 个元素{empty[1]}")
    return (f"block {block} should be block {rank} of rank {block}'s x, but element {i} of it "
            "is no rank's input: was this block ever received?",
            f"第 {block} 块应为 rank {block} 的 x 的第 {rank} 块，但其第 {i} 个元素不是任何 "
            "rank 的输入：这一块收到过吗？")
