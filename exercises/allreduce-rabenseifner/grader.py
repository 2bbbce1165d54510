"""Trusted grading code for allreduce-rabenseifner: inputs, the sum, bound, diagnosis."""

from __future__ import annotations

import math
import random

from cjudge.checkers import contributions, digit_inputs, everyone_holds_the_sum, exact_inputs


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's 1-D tensor of N exact values."""
    return exact_inputs(world, int(params["numel"]), params["dtype"], rng)


def example_inputs(params: dict, world: int) -> list[dict]:
    """The statement's example, the sample case: sums whose digits count the ranks."""
    return digit_inputs(world, int(params["numel"]), params["dtype"])


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Every rank ends with the elementwise sum, in place."""
    return everyone_holds_the_sum(inputs)


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """The ring's volume with room for uneven blocks: n−1 blocks of at most ⌈N/n⌉ elements in
    each phase."""
    return 2 * (world - 1) * math.ceil(int(params["numel"]) / world) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the block of the index, and the ranks whose contribution is missing or doubled."""
    numel = int(params["numel"])
    block = next(b for b in range(world) if index < (b + 1) * numel // world)
    parts = [i["data"][index] for i in inputs]
    if got == parts[rank] and got != math.fsum(parts):
        return (f"the element (block {block}, reduced on rank {block}) still holds this rank's "
                "own input: it was never reduced or never gathered",
                f"该元素（第 {block} 块，在 rank {block} 上归约）仍是本 rank 的输入：没有归约或没有收集")
    return contributions(got, parts, f"block {block} (reduced on rank {block})",
                         f"第 {block} 块（在 rank {block} 上归约）")
