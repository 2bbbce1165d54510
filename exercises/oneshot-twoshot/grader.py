"""Trusted grading code for oneshot-twoshot: inputs, the symmetric buffers, the sum, the bound,
diagnosis. Races on the buffers are the switch's to find (``switch.symm``)."""

from __future__ import annotations

import random
from typing import Any

from cjudge.contract.protocol import TensorData
from cjudge.kit.case import Case
from cjudge.kit.pieces import contributions, digit_inputs, everyone_holds_the_sum, exact_inputs


def _with_symm(inputs: list[TensorData], world: int) -> list[dict[str, Any]]:
    """Each rank's call: its tensor and the judge's symmetric memory, n·N elements of its dtype
    on every rank."""
    return [{"call": [t, {"fn": "symm", "params": {"numel": world * len(t["data"]),
                                                   "dtype": t["dtype"], "label": "symm"}}]}
            for t in inputs]


def _tensors(inputs: list[dict[str, Any]]) -> list[TensorData]:
    return [i["call"][0] for i in inputs]


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Every rank's 1-D tensor of N exact values, and the symmetric memory."""
    return _with_symm(exact_inputs(case.world, case["numel"], case.dtype, rng), case.world)


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example, the sample case: sums whose digits count the ranks."""
    return _with_symm(digit_inputs(case.world, case["numel"], case.dtype), case.world)


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[TensorData]:
    """Every rank ends with the elementwise sum, in place."""
    return everyone_holds_the_sum(_tensors(inputs))


def bytes_bound(case: Case) -> int:
    """One-shot's loads: every other rank's tensor, (n − 1)·S per rank."""
    return (case.world - 1) * case["numel"] * case.itemsize


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Whose contributions the element lacks or doubles."""
    parts = [t["data"][index] for t in _tensors(inputs)]
    return contributions(got, parts, "the element", "该元素")
