"""What a collective call's wrong input was made from, recognised in the run's values.

Two learner faults leave a clear trace in a call's input: the input is computed from another
rank's slice of an argument (it differs from the reference's by exactly the difference between
that slice and the rank's own), or it is one of the values the function returns (a result
gathered in place of another).
"""

from __future__ import annotations

from typing import Any

from ...contract import values
from ...contract.protocol import CaseSpec

Numbers = tuple[float | int, ...]


def arguments(spec: CaseSpec, rank: int, exercise: Any) -> list[tuple[str, list[Any]]]:
    """The rank's tensor arguments as passed in: (parameter name, its elements)."""
    rank_input = spec["inputs"][rank]
    call = rank_input.get("call") if isinstance(rank_input, dict) else None
    if not isinstance(call, list):
        return []
    return [(name, arg["data"]) for name, arg in zip(exercise.parameters, call, strict=False)
            if isinstance(arg, dict) and isinstance(arg.get("data"), list)]


def _close(a: float, b: float) -> bool:
    return values.close(a, b, 1e-5, 1e-6)


def other_slice(mine: Numbers, want: Numbers, spec: CaseSpec, rank: int, exercise: Any,
                algo: tuple[str, str]) -> tuple[str, str] | None:
    """"computed from rank j's slice of param": the input differs from the reference's by
    exactly rank j's slice of an argument minus this rank's own; None if by no such difference."""
    size = len(mine)
    if not size or size != len(want):
        return None
    for name, data in arguments(spec, rank, exercise):
        if len(data) % size or len(data) // size <= rank:
            continue
        own = data[rank * size:(rank + 1) * size]
        for j in range(len(data) // size):
            other = data[j * size:(j + 1) * size]
            if j != rank and other != own and all(
                    _close(g - w, o - m) for g, w, o, m in zip(mine, want, other, own, strict=True)):
                theirs = f"{name}[{j * size}:{(j + 1) * size}]"
                ours = f"{name}[{rank * size}:{(rank + 1) * size}]"
                return (f"its input is computed from rank {j}'s slice of {name} ({theirs}) where "
                        f"{algo[0]}'s is computed from rank {rank}'s own ({ours})",
                        f"它的输入是由 rank {j} 的 {name} 分片（{theirs}）算出的，而{algo[1]}的输入由 "
                        f"rank {rank} 自己的分片（{ours}）算出")
    return None


def returned(mine: Numbers, spec: CaseSpec, rank: int, exercise: Any) -> tuple[str, str] | None:
    """"its input is return value[1]": the input equals one of the values the rank's call
    should return (other than the whole result); None if none."""
    want = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])[rank]
    for path, leaf in values.leaves(want):
        if path and values.is_tensor(leaf) and len(leaf["data"]) == len(mine) and all(
                _close(float(g), float(w)) for g, w in zip(mine, leaf["data"], strict=True)):
            return (f"its input is what the function returns as return value{path}, not the "
                    "value this call should carry",
                    f"它的输入是函数作为返回值{path}返回的那个值，而不是这次调用应当传递的值")
    return None
