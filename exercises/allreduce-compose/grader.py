"""Trusted grading code for allreduce-compose: inputs, the sum, bound, diagnosis."""

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
    """Both halves on a padded tensor of n·⌈N/n⌉ elements: (n−1)·⌈N/n⌉ elements each."""
    return 2 * (world - 1) * math.ceil(int(params["numel"]) / world) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the shard of the index, and the ranks whose contribution is missing or doubled."""
    shard = index // math.ceil(int(params["numel"]) / world)
    parts = [i["data"][index] for i in inputs]
    if got == parts[rank] and got != math.fsum(parts):
        return (f"the element (shard {shard}) still holds this rank's own input: was the result "
                "copied back into t?",
                f"该元素（第 {shard} 段）仍是本 rank 的输入：结果写回 t 了吗？")
    if got == 0 and math.fsum(parts) != 0:
        return (f"the element (shard {shard}) is 0: the padding or an empty buffer, not the sum",
                f"该元素（第 {shard} 段）为 0：是填充或空缓冲区，不是和")
    return contributions(got, parts, f"shard {shard}", f"第 {shard} 段")
