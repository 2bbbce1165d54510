"""Trusted grading code for alltoall-transpose: rows of M, the expected blocks of Mᵀ, diagnosis."""

from __future__ import annotations

import random

from cjudge import checkers


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Row r of M for every rank r: n·n·k distinct values exact in float32, so that every
    element of M can be recognised wherever it lands."""
    width = world * int(params["k"])
    values = [v / 4 for v in rng.sample(range(1, 1 << 22), world * width)]
    return [{"shape": [width], "dtype": params["dtype"], "data": values[r * width:(r + 1) * width]}
            for r in range(world)]


def example_inputs(params: dict, world: int) -> list[dict]:
    """The statement's example, the sample case: rank r holds [10r, 10r+1, …] (n·k values, k = 1
    in the statement: each value names its rank and place)."""
    width = world * int(params["k"])
    return [{"shape": [width], "dtype": params["dtype"],
             "data": [10.0 * r + i for i in range(width)]} for r in range(world)]


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Rank r gets a (k, n) tensor: element [i][j] = M[j][r·k + i]."""
    k = int(params["k"])
    out = []
    for r in range(world):
        data = [inputs[j]["data"][r * k + i] for i in range(k) for j in range(world)]
        out.append({"shape": [k, world], "dtype": params["dtype"], "data": data})
    return out


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """Each rank keeps its own block and sends the other (n-1)·k elements of its row."""
    return (world - 1) * int(params["k"]) * itemsize



def needs(params: dict, world: int, inputs: list[dict], rank: int,
          calls: list[dict]) -> tuple[str, str] | None:
    """Over budget: rank p needs only block p of the rank's row."""
    return checkers.blocks_needed(params, world, rank, calls, ("row", "行"))


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say which element of M was found where another was expected."""
    k = int(params["k"])
    i, j = divmod(index, world)
    where = {v: (row, col) for row, inp in enumerate(inputs) for col, v in enumerate(inp["data"])}
    if got not in where:
        return None
    row, col = where[got]
    empty = (" or a 0 never overwritten", "，或是从未写入的 0") if got == 0 else ("", "")
    return (f"element [{i}][{j}] should be M[{j}][{rank * k + i}] (rank {j}'s element "
            f"{rank * k + i}) but is M[{row}][{col}] (rank {row}'s element {col}){empty[0]}",
            f"元素 [{i}][{j}] 应为 M[{j}][{rank * k + i}]（rank {j} 的第 {rank * k + i} 个元素），"
            f"实际为 M[{row}][{col}]（rank {row} 的第 {col} 个元素）{empty[1]}")


def smaller_cases(params: dict, world: int) -> list[tuple[int, dict]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, narrower blocks."""
    return checkers.smaller_cases(params, world, "k")
