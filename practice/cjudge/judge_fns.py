"""Functions the judge hands a learner's call (a pipeline stage, an expert), and their charge.

A grader passes one as the value ``{"fn": name, "params": {...}}`` (``values``); the rank gets a
plain Python callable made here. Each call first tells the switch (``charge(name)``), which
records it in the trace's ``computes``: the cost model charges the exercise's declared compute
time there (``[model] compute``), in the rank's program order. The functions use only tensor
arithmetic, so they run alike on real torch and on the simulation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _affine(params: dict[str, Any]) -> Callable[[Any], Any]:
    """``x * scale + shift``: exact for the judge's dyadic inputs, and tells stages apart."""
    scale, shift = params.get("scale", 1), params.get("shift", 0)

    def affine(x: Any) -> Any:
        return x * scale + shift

    return affine


#: name -> a maker of the function from its params
FUNCTIONS: dict[str, Callable[[dict[str, Any]], Callable[[Any], Any]]] = {"affine": _affine}


def make(name: str, params: dict[str, Any], charge: Callable[[str], None]) -> Callable[..., Any]:
    """The callable the learner receives for ``{"fn": name, "params": params}``."""
    if name not in FUNCTIONS:
        raise ValueError(f"the judge has no function {name!r}")
    body = FUNCTIONS[name](params)

    def judge_function(*args: Any, **kwargs: Any) -> Any:
        charge(name)
        return body(*args, **kwargs)

    judge_function.__name__ = judge_function.__qualname__ = str(params.get("label", name))
    return judge_function
