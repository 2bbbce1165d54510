"""Trusted grading code for ring-allreduce: inputs, expected sums, byte bound, diagnosis."""

from __future__ import annotations

import math
from typing import Any

from cjudge.kit import pieces
from cjudge.kit.case import Case, MessageReader
from cjudge.kit.families import SumToAll, ring_allreduce_bytes

#: exact inputs, the statement's example whose digits count the ranks, every rank the sum
ALL_REDUCE = SumToAll("numel")
make_inputs = ALL_REDUCE.make_inputs
example_inputs = ALL_REDUCE.example_inputs
expected = ALL_REDUCE.expected

#: no rank may send more than 2(n-1)·⌈N/n⌉ elements
bytes_bound = ring_allreduce_bytes


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the rank whose contribution at ``index`` is missing or counted twice, if one is."""
    want = math.fsum(i["data"][index] for i in inputs)
    diff = got - want
    if diff == 0:
        return None
    if math.isclose(got, inputs[rank]["data"][index], rel_tol=1e-6):
        return ("the element still holds this rank's own input: it was never reduced",
                "该元素仍是本 rank 的输入：没有参与归约")
    for r, inp in enumerate(inputs):
        x = inp["data"][index]
        if x == 0:
            continue
        if math.isclose(diff, -x, rel_tol=1e-6):
            return (f"rank {r}'s contribution ({x:g}) is missing from this element",
                    f"该元素缺少 rank {r} 的贡献（{x:g}）")
        if math.isclose(diff, x, rel_tol=1e-6):
            return (f"rank {r}'s contribution ({x:g}) is counted twice in this element",
                    f"该元素把 rank {r} 的贡献（{x:g}）加了两次")
    return None


def chunk_of(case: Case, index: int) -> int:
    """The chunk of ``t.chunk(world)`` that holds element ``index`` (for the trace view)."""
    return index // math.ceil(case["numel"] / case.world)


def chunk_reader(case: Case, inputs: list[dict[str, Any]]) -> MessageReader:
    """What tells the chunk a message carries and whose contributions it sums (the trace
    view's labels and each rank's buffer filling in)."""
    return pieces.chunk_reader(inputs, pieces.torch_chunks(case["numel"], case.world))


def smaller_cases(case: Case) -> list[tuple[int, dict[str, Any]]]:
    """Smaller cases for the smallest-failing-case search: those where ``t.chunk(n)`` makes n
    chunks, as the chapter's code assumes."""
    return pieces.smaller_cases(case, "numel",
                                  lambda n, numel: (n - 1) * math.ceil(numel / n) < numel)
