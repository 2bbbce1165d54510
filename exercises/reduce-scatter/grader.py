"""Trusted grading code for reduce-scatter: inputs, each rank's summed shard, bound, diagnosis."""

from __future__ import annotations

import math
import random

from cjudge import checkers
from cjudge.checkers import chunk_reader as sum_reader
from cjudge.checkers import contributions, digit_inputs, elementwise_sum, exact_inputs


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's 1-D tensor of n·m exact values."""
    return exact_inputs(world, world * int(params["m"]), params["dtype"], rng)


def example_inputs(params: dict, world: int) -> list[dict]:
    """The statement's example, the sample case: sums whose digits count the ranks."""
    return digit_inputs(world, world * int(params["m"]), params["dtype"])


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Rank r gets shard r of the elementwise sum: elements r·m … r·m+m−1."""
    m = int(params["m"])
    total = elementwise_sum(inputs)
    return [{"shape": [m], "dtype": params["dtype"], "data": total[r * m:(r + 1) * m]}
            for r in range(world)]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """The ring: n−1 shards of m elements per rank."""
    return (world - 1) * int(params["m"]) * itemsize


def needs(params: dict, world: int, inputs: list[dict], rank: int,
          calls: list[dict]) -> tuple[str, str] | None:
    """Over budget: rank p needs only shard p of the rank's x (m elements)."""
    return checkers.blocks_needed(params, world, rank, calls, ("x", "x"), block="m")


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the shard the value belongs to, or the rank whose contribution is missing or doubled."""
    m = int(params["m"])
    at = rank * m + index
    for shard in range(world):
        if shard != rank and got == math.fsum(i["data"][shard * m + index] for i in inputs):
            return (f"this is element {index} of shard {shard}'s sum: rank {rank} must return "
                    f"shard {rank} (elements {rank * m}…{rank * m + m - 1} of the sum)",
                    f"这是第 {shard} 段之和的第 {index} 个元素：rank {rank} 应返回第 {rank} 段"
                    f"（和的第 {rank * m}…{rank * m + m - 1} 个元素）")
    return contributions(got, [i["data"][at] for i in inputs], f"shard {rank}", f"第 {rank} 段")


def chunk_reader(params: dict, world: int, inputs: list[dict]):
    """Which shard a message carries and whose contributions it sums (the trace view)."""
    m = int(params["m"])
    return sum_reader(inputs, [(r * m, (r + 1) * m) for r in range(world)], ("shard", "段"))


def smaller_cases(params: dict, world: int) -> list[tuple[int, dict]]:
    """Smaller cases for the smallest-failing-case search: fewer ranks, shorter shards."""
    return checkers.smaller_cases(params, world, "m")
