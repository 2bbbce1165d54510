"""Trusted grading code for allreduce-small: inputs, the sum, bound, diagnosis."""

from __future__ import annotations

import math
from typing import Any

from cjudge.kit.case import Case, MessageReader
from cjudge.kit.families import SumToAll
from cjudge.kit.pieces import chunk_reader as sum_reader
from cjudge.kit.pieces import contributions

#: exact inputs, the statement's example whose digits count the ranks, every rank the sum
ALL_REDUCE = SumToAll("numel")
make_inputs = ALL_REDUCE.make_inputs
example_inputs = ALL_REDUCE.example_inputs
expected = ALL_REDUCE.expected


def bytes_bound(case: Case) -> int:
    """⌈log₂n⌉ whole tensors per rank: log₂p exchanges, plus the result sent back to a folded
    rank when n is not a power of two p."""
    return math.ceil(math.log2(case.world)) * case["numel"] * case.itemsize


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say whether the rank kept its own input, or whose contributions are missing or doubled."""
    parts = [i["data"][index] for i in inputs]
    p = 1 << (case.world.bit_length() - 1)
    if got == parts[rank] and got != math.fsum(parts):
        extra = (f" (rank {rank} is one of the n − {p} ranks folded into the first {p}: "
                 f"it must get the result back from rank {rank - p})") if rank >= p else ""
        extra_zh = (f"（rank {rank} 是被折叠进前 {p} 个 rank 的多余 rank：它必须从 rank "
                    f"{rank - p} 收回结果）") if rank >= p else ""
        return (f"the element still holds this rank's own input{extra}",
                f"该元素仍是本 rank 的输入{extra_zh}")
    return contributions(got, parts, "the element", "该元素")


def chunk_reader(case: Case, inputs: list[dict[str, Any]]) -> MessageReader:
    """Whose contributions a message's whole tensor sums (the trace view)."""
    return sum_reader(inputs, [(0, case["numel"])])
