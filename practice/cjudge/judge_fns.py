"""Functions the judge hands a learner's call (a pipeline stage, an expert), and their charge.

A grader passes one as the value ``{"fn": name, "params": {...}}`` (``values``); the rank gets a
plain Python callable made here. Each call first tells the switch (``charge(name)``), which
records it in the trace's ``computes``: the cost model charges the exercise's declared compute
time there (``[model] compute``), in the rank's program order; ``params["unit"]`` (elements)
charges a call on k units' worth of elements k times. The functions use only tensor
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


def _expert(params: dict[str, Any]) -> Callable[[Any, Any], Any]:
    """One rank's experts of a mixture of experts: ``expert(tokens, counts)`` takes the rows of
    ``tokens`` grouped by local expert (``counts[i]`` rows for local expert i, in order) and
    multiplies local expert i's by 1 + e, e = ``params["first"]`` + i its global id; the
    result has ``tokens``' shape. ``params["local"]``: how many local experts ``counts`` names."""
    first, local = int(params.get("first", 0)), params.get("local")

    def expert(tokens: Any, counts: Any) -> Any:
        sizes = [int(c) for c in counts]
        if local is not None and len(sizes) != local:
            raise ValueError(f"expert: counts has {len(sizes)} entries; this rank has {local} "
                             f"experts (one count each) (expert：counts 有 {len(sizes)} 项；本 rank "
                             f"有 {local} 个专家，每个专家一项)")
        if any(size < 0 for size in sizes) or sum(sizes) != tokens.shape[0]:
            raise ValueError(f"expert: counts {sizes} do not add up to the {tokens.shape[0]} "
                             f"rows of tokens (expert：counts {sizes} 之和不等于 tokens 的 "
                             f"{tokens.shape[0]} 行)")
        out = tokens.clone()
        start = 0
        for i, size in enumerate(sizes):
            if size:
                out[start:start + size] = tokens[start:start + size] * (1 + first + i)
            start += size
        return out

    return expert


#: name -> a maker of the function from its params
FUNCTIONS: dict[str, Callable[[dict[str, Any]], Callable[..., Any]]] = {
    "affine": _affine, "expert": _expert}


def _charges(unit: Any, args: tuple[Any, ...]) -> int:
    """How many calls' worth one call is: with ``params["unit"]`` (elements one call covers,
    e.g. one microbatch's), a tensor of k units costs k charges, so batching work into one call
    saves nothing; otherwise one."""
    if not isinstance(unit, int) or isinstance(unit, bool) or unit < 1 or not args \
            or not callable(getattr(args[0], "numel", None)):
        return 1
    return max(1, -(-int(args[0].numel()) // unit))


def make(name: str, params: dict[str, Any], charge: Callable[[str], None]) -> Callable[..., Any]:
    """The callable the learner receives for ``{"fn": name, "params": params}``."""
    if name not in FUNCTIONS:
        raise ValueError(f"the judge has no function {name!r} (评测机没有函数 {name!r})")
    body = FUNCTIONS[name](params)
    unit = params.get("unit")

    def judge_function(*args: Any, **kwargs: Any) -> Any:
        for _ in range(_charges(unit, args)):
            charge(name)
        return body(*args, **kwargs)

    judge_function.__name__ = judge_function.__qualname__ = str(params.get("label", name))
    return judge_function
