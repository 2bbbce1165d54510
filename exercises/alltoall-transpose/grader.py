"""Trusted grading code for alltoall-transpose: rows of M, the expected blocks of Mᵀ, diagnosis."""

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


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank r gets a (k, n) tensor: element [i][j] = M[j][r·k + i] (element i of the block
    rank j sent it)."""
    return [{"shape": [case["k"], case.world], "dtype": case.dtype,
             "data": [v for column in zip(*blocks, strict=True) for v in column]}
            for blocks in ALL_TO_ALL.received(case, inputs)]


def chunk_of(case: Case, index: int) -> int:
    """The column of the (k, n) result that holds element ``index``: the rank that sent it."""
    return index % case.world


def bytes_bound(case: Case) -> int:
    """Each rank keeps its own block and sends the other (n-1)·k elements of its row."""
    return blocks_to_others(case, "k") * case.itemsize



def needs(case: Case, inputs: list[dict[str, Any]], rank: int,
          calls: list[TraceEvent]) -> tuple[str, str] | None:
    """Over budget: rank p needs only block p of the rank's row."""
    return pieces.blocks_needed(case, rank, calls, ("row", "行"))


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say which element of M was found where another was expected."""
    k = case["k"]
    i, j = divmod(index, case.world)
    where = {v: (row, col) for row, inp in enumerate(inputs) for col, v in enumerate(inp["data"])}
    if got not in where:
        return None
    row, col = where[got]
    empty = (" or a 0 never overwritten", "，或是从未写入的 0") if got == 0 else ("", "")
    return (f"element [{i}][{j}] should be M[{j}][{rank * k + i}] (rank {j}'s element "
            f"{rank * k + i}) but is M[{row}][{col}] (rank {row}'s element {col}){empty[0]}",
            f"元素 [{i}][{j}] 应为 M[{j}][{rank * k + i}]（rank {j} 的第 {rank * k + i} 个元素），"
            f"实际为 M[{row}][{col}]（rank {row} 的第 {col} 个元素）{empty[1]}")


def smaller_cases(case: Case) -> list[tuple[int, dict[str, Any]]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, narrower blocks."""
    return pieces.smaller_cases(case, "k")
