"""Named families of collectives: what their graders share, written once.

Each family makes a grader's ``make_inputs``, ``example_inputs`` (the statement's example) and
``expected`` for a collective of its kind, its size read from the case parameter it is given;
a grader binds them (``make_inputs = FAMILY.make_inputs``) and writes only what is its own. The
bounds the families' algorithms reach are functions beside them.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..contract.protocol import TensorData
from .case import Case
from .pieces import digit_inputs, elementwise_sum, everyone_holds_the_sum, exact_inputs, refined


def _tensor(shape: list[int], dtype: str, data: list[float]) -> TensorData:
    return {"shape": shape, "dtype": dtype, "data": data}


class SumToAll:
    """An all-reduce of sums: every rank's 1-D tensor of ``case[size]`` exact values, and every
    rank ends with the elementwise sum (``pieces``: sums exact in any order, so a wrong one says
    whose contribution it lacks)."""

    def __init__(self, size: str = "numel") -> None:
        self.size = size

    def make_inputs(self, case: Case, rng: random.Random) -> list[Any]:
        """Every rank's tensor of exact values."""
        return exact_inputs(case.world, case[self.size], case.dtype, rng)

    def example_inputs(self, case: Case) -> list[Any]:
        """The statement's example, the sample case: sums whose digits count the ranks."""
        return digit_inputs(case.world, case[self.size], case.dtype)

    def expected(self, case: Case, inputs: list[Any]) -> list[Any]:
        """Every rank ends with the elementwise sum of all ranks' inputs."""
        return everyone_holds_the_sum(inputs)


class ShardedSum(SumToAll):
    """A reduce-scatter of sums: every rank's tensor of world·``case[size]`` exact values; rank
    r ends with shard r of the elementwise sum."""

    def make_inputs(self, case: Case, rng: random.Random) -> list[Any]:
        """Every rank's tensor of n·m exact values."""
        return exact_inputs(case.world, case.world * case[self.size], case.dtype, rng)

    def example_inputs(self, case: Case) -> list[Any]:
        """The statement's example, the sample case: sums whose digits count the ranks."""
        return digit_inputs(case.world, case.world * case[self.size], case.dtype)

    def expected(self, case: Case, inputs: list[Any]) -> list[Any]:
        """Rank r gets shard r of the elementwise sum: elements r·m … r·m+m−1."""
        total = elementwise_sum(inputs)
        return [_tensor([hi - lo], case.dtype, total[lo:hi]) for lo, hi in case.shards(self.size)]


def distinct_values(count: int, dtype: str, rng: random.Random) -> list[float]:
    """``count`` distinct values exact in ``dtype`` (moved, never summed), so each can be
    traced to where it came from wherever it lands; no narrower float holds them."""
    return refined([v / 4 for v in rng.sample(range(1, 1 << 22), count)], 1 / 4, 22, 0, dtype,
                   rng)


class Blocks:
    """Collectives that move whole blocks: every rank's ``width(case)`` distinct values, cut
    into world blocks of ``case[size]``; subclasses say where the blocks go."""

    def __init__(self, size: str) -> None:
        self.size = size

    def width(self, case: Case) -> int:
        """Elements per rank's input."""
        return case.world * case[self.size]

    def chunk_of(self, case: Case, index: int) -> int:
        """The block of a result (one per rank, of ``case[size]`` values) that holds element
        ``index``: its source rank in an all-gather, in an all-to-all's output."""
        return index // case[self.size]

    def make_inputs(self, case: Case, rng: random.Random) -> list[Any]:
        """Every rank's distinct values, exact in the case's dtype."""
        width = self.width(case)
        values = distinct_values(case.world * width, case.dtype, rng)
        return [_tensor([width], case.dtype, values[r * width:(r + 1) * width])
                for r in range(case.world)]


class Gather(Blocks):
    """An all-gather: rank r's ``case[size]`` values; every rank ends with all of them, in rank
    order."""

    def width(self, case: Case) -> int:
        """Elements per rank's input: one block."""
        return case[self.size]

    def example_inputs(self, case: Case) -> list[Any]:
        """The statement's example, the sample case: what reduce-scatter's example leaves,
        element j of the sum being (j+1)·11…1 (one 1 per rank): [1111], [2222], [3333], [4444]
        on 4 ranks. Distinct values, so each can be traced to its rank."""
        m, ones = case[self.size], int("1" * case.world)
        return [_tensor([m], case.dtype, [float((r * m + i + 1) * ones) for i in range(m)])
                for r in range(case.world)]

    def expected(self, case: Case, inputs: list[Any]) -> list[Any]:
        """Every rank gets every rank's block, in rank order: n·m elements."""
        whole = [v for i in inputs for v in i["data"]]
        return [_tensor([len(whole)], case.dtype, whole) for _ in inputs]


class AllToAllBlocks(Blocks):
    """An all-to-all of blocks: rank r's row of n blocks of ``case[size]`` values; block p of
    it goes to rank p."""

    def example_inputs(self, case: Case) -> list[Any]:
        """The statement's example, the sample case: rank r holds [10r, 10r+1, …] (n·k values,
        k = 1 in the statement: each value names its rank and place)."""
        width = self.width(case)
        return [_tensor([width], case.dtype, [10.0 * r + i for i in range(width)])
                for r in range(case.world)]

    def received(self, case: Case, inputs: list[Any]) -> list[list[list[float]]]:
        """Per rank r, the blocks it receives in source order: block r of every rank's row."""
        k = case[self.size]
        return [[i["data"][r * k:(r + 1) * k] for i in inputs] for r in range(case.world)]


def ring_allreduce_bytes(case: Case) -> int:
    """A ring all-reduce's bytes per rank, a ``bytes_bound``: reduce-scatter then all-gather,
    n−1 steps each, one ⌈N/n⌉-element chunk a step: 2(n−1)·⌈N/n⌉ elements."""
    return 2 * (case.world - 1) * math.ceil(case["numel"] / case.world) * case.itemsize


def blocks_to_others(case: Case, size: str) -> int:
    """Elements per rank when each sends one block of ``case[size]`` to each other rank (a ring
    all-gather or reduce-scatter, an all-to-all): (n−1)·m."""
    return (case.world - 1) * case[size]
