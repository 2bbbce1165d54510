"""A failing case's logic on generic values: the same parameters and world, inputs drawn at
random instead of the statement's example (whose identity weights and round numbers make
coincidences), to confirm what the case's own evidence suggests before it is blamed."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ...contract.protocol import CaseSpec
from ...contract.values import is_tensor
from ..seeds import case_seed

#: the generic draw's seed, this far after the exercise's own (never a graded draw's)
OFFSET = 7919


def drawn_inputs(exercise: Any, world: int, params: Mapping[str, int | str], seed: int,
                 name: str) -> list[Any]:
    """Every rank's inputs drawn by the grader from ``seed`` and the case's ``name``, with the
    exercise's call arguments."""
    inputs = exercise.grader.make_inputs(params, world, random.Random(case_seed(seed, name)))
    if exercise.arguments:
        inputs = [{**i, "args": exercise.call_args(params)} for i in inputs]
    return list(inputs)


def _fractions(value: Any) -> bool:
    """Whether a case's input holds a float that is not a whole number (at any depth)."""
    if is_tensor(value):
        return any(isinstance(v, float) and not v.is_integer() for v in value["data"])
    if isinstance(value, dict):
        return any(_fractions(v) for v in value.values())
    if isinstance(value, list):
        return any(_fractions(v) for v in value)
    return False


def worth_a_second_draw(exercise: Any, spec: CaseSpec) -> bool:
    """Whether the case's evidence may hold coincidences or last-bit noise: a sample made from
    the statement's example, or inputs with fractions (a matmul in another order rounds
    differently)."""
    example = spec["sample"] and getattr(exercise.grader, "example_inputs", None) is not None
    return example or _fractions(spec["inputs"])


def generic_spec(exercise: Any, spec: CaseSpec) -> CaseSpec:
    """``spec`` with every rank's inputs drawn at random (a sample's too)."""
    inputs = drawn_inputs(exercise, spec["world_size"], spec["params"],
                          exercise.seed + OFFSET, spec["name"])
    return CaseSpec(**{**spec, "inputs": inputs, "sample": False})
