"""Values that cross between the grader and a rank: a graded call's arguments and its result.

A value is plain JSON, the same on every runtime:

* a tensor is a :class:`protocol.TensorData` (``{"shape", "dtype", "data"}``);
* numbers, strings, booleans and ``None`` are themselves; a list is a JSON list;
* a tuple is ``{"tuple": [...]}``;
* a function the judge hands the learner is ``{"fn": name, "params": {...}}``; the switch keeps
  the params and the rank gets ``{"fn": name, "handle": k, "label": ...}`` (``switch.functions``,
  ``judge_fns``).

A rank's case input (what a grader's ``make_inputs`` returns per rank) is either one tensor,
called as ``f(tensor, *args)`` with the exercise's ``arguments``, or ``{"call": [value, ...]}``,
called as ``f(*values)``; ``"functions": ["a", "b"]`` there makes the judge call ``a(*values)``
and then ``b`` on what ``a`` returned (a round trip), instead of the exercise's function.
No torch here: each runtime passes its own tensor constructors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeGuard

from ..switch.reduce import DTYPES as SWITCH_DTYPES
from .protocol import RESULT_BYTES, CaseSpec, TensorData

#: how deep a result may nest (what :func:`encode` keeps, :func:`checked` accepts), and how many
#: scalars and tensor elements it may hold in all
MAX_DEPTH = 8
MAX_ELEMENTS = 1 << 24
#: the dtypes the judge knows, with their element sizes (the switch's table)
ITEMSIZE = {name: size for name, (_, size, _) in SWITCH_DTYPES.items()}
#: the integers the judge compares: those of 64 bits
INT_RANGE = range(-(1 << 63), 1 << 63)


class Uncomparable(ValueError):
    """A result the judge cannot compare, with why in English and Chinese (the learner's)."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh


def close(got: float, want: float, rel_tol: float, abs_tol: float) -> bool:
    """``math.isclose`` made total: a number too large to be a float is not close."""
    try:
        return math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol)
    except OverflowError:
        return False


#: a float element's tolerance, relative and absolute, by dtype (integers match exactly)
TOLERANCE = {"float32": 1e-5, "float64": 1e-9}


def element_matches(got: Any, want: Any, dtype: str) -> bool:
    """Whether a result's element is the expected one, at the judge's tolerance for ``dtype``
    (:data:`TOLERANCE`; 1e-9 for any other float)."""
    tol = TOLERANCE.get(dtype, TOLERANCE["float64"])
    return got == want or (isinstance(want, float) and isinstance(got, (int, float))
                           and close(got, want, tol, tol))


def is_tensor(value: Any) -> TypeGuard[TensorData]:
    """Whether ``value`` is a tensor's plain-data form."""
    return isinstance(value, dict) and "shape" in value and "data" in value


def call_of(rank_input: Mapping[str, Any], function: str) -> tuple[list[str], list[Any]]:
    """The functions to call, in turn, and the first one's arguments (values) for one rank."""
    if "call" in rank_input:
        return list(rank_input.get("functions") or [function]), list(rank_input["call"])
    tensor = {k: v for k, v in rank_input.items() if k != "args"}
    return [function], [tensor, *rank_input.get("args", [])]


def decode(value: Any, tensor: Callable[[TensorData], Any],
           fn: Callable[[dict[str, object]], Any]) -> Any:
    """A value as the learner's code sees it: tensors by ``tensor``, a judge's function's
    handle by ``fn``."""
    if isinstance(value, list):
        return [decode(v, tensor, fn) for v in value]
    if isinstance(value, dict):
        if is_tensor(value):
            return tensor(value)
        if "tuple" in value:
            return tuple(decode(v, tensor, fn) for v in value["tuple"])
        if "fn" in value:
            return fn(value)
        raise ValueError(f"not a value: a dict with keys {sorted(value)}")
    return value


def encode(obj: Any, to_data: Callable[[Any], TensorData | None], depth: int = 0,
           budget: list[int] | None = None) -> Any:
    """The plain-data form of what the learner's call left (a tensor, number, list, tuple…);
    anything else (a dict, an object, a list whose items would nest past ``MAX_DEPTH``) as
    ``{"object": its type}``. Past ``MAX_ELEMENTS`` items in all the rest is cut off: a list
    that holds itself a hundred times is never walked 100⁸ times."""
    budget = [MAX_ELEMENTS] if budget is None else budget
    budget[0] -= 1
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    data = to_data(obj)
    if data is not None:
        return data
    if budget[0] > 0 and depth < MAX_DEPTH and isinstance(obj, (list, tuple)):
        items = []
        for v in obj:
            if budget[0] <= 0:  # the rest is cut off: the result reads as too short
                break
            items.append(encode(v, to_data, depth + 1, budget))
        return items if isinstance(obj, list) else {"tuple": items}
    return {"object": type(obj).__name__}


def checked(value: Any) -> Any:
    """``value`` if it is a well-formed result (from an untrusted rank), else :class:`ValueError`
    (:class:`Uncomparable` for an integer outside :data:`INT_RANGE`). A tensor may be packed
    (``switch.packed``: its elements beside the value, not in it)."""
    budget = [MAX_ELEMENTS]

    def walk(v: Any, depth: int) -> None:
        budget[0] -= 1
        if depth > MAX_DEPTH or budget[0] < 0:
            raise ValueError("too large or too deep")
        if v is None or isinstance(v, (bool, float)):
            return
        if isinstance(v, int):
            _check_int(v)
            return
        if isinstance(v, str):
            if len(v) > 10_000:
                raise ValueError("a string too long")
            return
        if isinstance(v, list):
            for item in v:
                walk(item, depth + 1)
            return
        if isinstance(v, dict) and set(v) == {"tuple"} and isinstance(v["tuple"], list):
            walk(v["tuple"], depth)
            return
        if isinstance(v, dict) and set(v) == {"object"} and isinstance(v["object"], str):
            if len(v["object"]) > 200:
                raise ValueError("a type name too long")
            return
        if isinstance(v, dict) and set(v) == {"shape", "dtype", "at"}:
            _check_packed(v)  # its elements are bytes: the channel's frame limit bounds them
            return
        if not is_tensor(v) or set(v) != {"shape", "dtype", "data"}:
            raise ValueError("not a value")
        _check_tensor(v, budget)

    walk(value, 0)
    return value


def _check_packed(t: Mapping[str, Any]) -> None:
    """A tensor whose elements travel as bytes (``switch.packed``): its form only."""
    shape, at = t["shape"], t["at"]
    if t["dtype"] not in ITEMSIZE or not isinstance(shape, list) or not isinstance(at, list) \
            or len(at) != 2 or len(shape) > 64:
        raise ValueError("a malformed tensor")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape + at):
        raise ValueError("a malformed shape")


def _check_tensor(t: Mapping[str, Any], budget: list[int]) -> None:
    shape, data = t["shape"], t["data"]
    if t["dtype"] not in ITEMSIZE or not isinstance(shape, list) or not isinstance(data, list):
        raise ValueError("a malformed tensor")
    size = 1
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool) or d < 0:
            raise ValueError("a malformed shape")
        size *= d
    budget[0] -= len(data)
    if budget[0] < 0 or size != len(data):
        raise ValueError("a malformed tensor")
    for x in data:
        if type(x) is int:
            _check_int(x)
        elif not isinstance(x, (int, float)):
            raise ValueError("a malformed tensor")


def _check_int(x: int) -> None:
    if x not in INT_RANGE:
        raise Uncomparable(
            f"its result holds an integer of {x.bit_length()} bits, outside ±2⁶³: the judge "
            "compares 64-bit integers, as a tensor holds them",
            f"其结果中有一个 {x.bit_length()} 位的整数，超出 ±2⁶³：评测机只比较 64 位整数"
            "（与张量能存放的一致）")


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every tensor and scalar in ``value`` with its path (``""``, ``"[1]"``, ``"[0][2]"``)."""
    if isinstance(value, list) or (isinstance(value, dict) and "tuple" in value):
        for i, item in enumerate(value if isinstance(value, list) else value["tuple"]):
            yield from leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def tensors(value: Any) -> list[TensorData]:
    """The tensors in a value (a rank's input or result), in order."""
    if isinstance(value, dict) and "call" in value:
        value = value["call"]
    return [leaf for _, leaf in leaves(value) if is_tensor(leaf)]


def nbytes(value: Any) -> int:
    """Bytes of every tensor in a value."""
    total = 0
    for t in tensors(value):
        numel = 1
        for d in t["shape"]:
            numel *= d
        total += numel * ITEMSIZE.get(t["dtype"], 8)
    return total


def input_bytes(case: CaseSpec, rank: int = 0) -> int:
    """A case's S in the run: the bytes of rank ``rank``'s input tensors (a ``CaseSpec``), those
    a judge's generator yields to it included (a backward's gradients)."""
    value = case["inputs"][rank]
    items = [item for _, leaf in leaves(value.get("call", value) if isinstance(value, dict)
                                        else value)
             if isinstance(leaf, dict) and "fn" in leaf
             for item in (leaf.get("params") or {}).get("items", [])]
    return nbytes(value) + nbytes(items)


def results_room(case: CaseSpec) -> int:
    """Bytes a case's results may take on a sandbox's result channel (beyond its record): each
    rank's as large as all the ranks' inputs together, as an all-gather's is."""
    world = case["world_size"]
    return world * sum(input_bytes(case, rank) for rank in range(world))


def result_budget(cases: list[CaseSpec], allowance: int = RESULT_BYTES) -> int:
    """What a job's result channel carries: the ``allowance`` for its records (traces, errors,
    output) and the room of every case's results. The worker reads no more; the runner keeps
    within it."""
    return allowance + sum(results_room(case) for case in cases)


def element_size(case: CaseSpec) -> int:
    """The element size of rank 0's first input tensor (1 when it has none): byte bounds' e."""
    found = tensors(case["inputs"][0])
    return ITEMSIZE.get(found[0]["dtype"], 8) if found else 1


def describe(value: Any) -> tuple[str, str]:
    """What a value is, for a message, (English, Chinese): "a tensor", "a list of 3", "a tuple
    of 2", "a float"."""
    if is_tensor(value):
        return "a tensor", "一个张量"
    if isinstance(value, list):
        return f"a list of {len(value)}", f"含 {len(value)} 项的列表"
    if isinstance(value, dict) and "tuple" in value:
        return f"a tuple of {len(value['tuple'])}", f"含 {len(value['tuple'])} 项的元组"
    if isinstance(value, dict) and "object" in value:
        return f"a {value['object']}", f"一个 {value['object']}"
    return ("None", "空值 None") if value is None else (f"a {type(value).__name__}",
                                                   f"一个 {type(value).__name__}")


def same_structure(got: Any, want: Any) -> bool:
    """Whether two values nest the same way (lists as lists, tuples as tuples, same lengths)."""
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want)
    if isinstance(want, dict) and "tuple" in want:
        return isinstance(got, dict) and "tuple" in got and len(got["tuple"]) == len(want["tuple"])
    return True


def walk_pairs(got: Any, want: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(path, got, want) for every leaf of ``want``; a structural difference is one pair at the
    point where it differs (its ``got`` is whatever the learner's value holds there)."""
    if not same_structure(got, want) or not (
            isinstance(want, list) or (isinstance(want, dict) and "tuple" in want)):
        yield path, got, want
        return
    g_items = got if isinstance(got, list) else got["tuple"]
    w_items = want if isinstance(want, list) else want["tuple"]
    for i, (g, w) in enumerate(zip(g_items, w_items, strict=True)):
        yield from walk_pairs(g, w, f"{path}[{i}]")
