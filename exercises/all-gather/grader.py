"""Trusted grading code for all-gather: inputs, the concatenation, bound, diagnosis."""

from __future__ import annotations

import random

from cjudge import checkers
from cjudge.checkers import block_reader


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's m distinct values, exact in float32, so each can be traced to its rank."""
    m = int(params["m"])
    values = [v / 4 for v in rng.sample(range(1, 1 << 22), world * m)]
    return [{"shape": [m], "dtype": params["dtype"], "data": values[r * m:(r + 1) * m]}
            for r in range(world)]


def example_inputs(params: dict, world: int) -> list[dict]:
    """The statement's example, the sample case: what reduce-scatter's example leaves, element
    j of the sum being (j+1)·11…1 (one 1 per rank): [1111], [2222], [3333], [4444] on 4 ranks.
    Distinct values, so each can be traced to its rank."""
    m, ones = int(params["m"]), int("1" * world)
    return [{"shape": [m], "dtype": params["dtype"],
             "data": [float((r * m + i + 1) * ones) for i in range(m)]} for r in range(world)]


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Every rank gets every rank's x, in rank order: n·m elements."""
    whole = [v for i in inputs for v in i["data"]]
    return [{"shape": [len(whole)], "dtype": params["dtype"], "data": whole} for _ in inputs]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """Each rank's block must reach n−1 others; on a ring each rank forwards n−1 blocks."""
    return (world - 1) * int(params["m"]) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say whose element was found in the block where another rank's was expected."""
    m = int(params["m"])
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


def chunk_reader(params: dict, world: int, inputs: list[dict]):
    """Whose block a message carries (the trace view: each rank's output filling in)."""
    return block_reader(inputs)


def smaller_cases(params: dict, world: int) -> list[tuple[int, dict]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, shorter blocks."""
    return checkers.smaller_cases(params, world, "m")
