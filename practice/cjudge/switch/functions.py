"""The functions the judge hands a learner's call (a pipeline stage, an expert, a layer, a
backward), applied here.

A grader passes one as the value ``{"fn": name, "params": {...}}``. The switch keeps the params
(:func:`split`): the rank's input holds only ``{"fn": name, "handle": k, "label": ...}`` (and the
params :data:`PUBLIC` names), and a call is a ``compute`` request that carries the tensor's
bytes, dtype and shape (and small integer arguments such as an expert's ``counts``) to the
switch, which applies the function with :func:`apply` and answers the output's bytes (the shape
and dtype of the call's last tensor). A function of two tensors (:data:`PAIRS`) gets both in
one payload, the first's elements in ``args[0]`` (``scores`` answers a matrix of another shape:
``judge_fns.OUTPUT_SHAPES``); a generator (:data:`GENERATORS`) takes no
tensor and answers its next item. Pure Python over raw little-endian bytes, like ``reduce``:
the same on every runtime. The charge is the switch's: ``params["unit"]`` elements make one unit
(:func:`units`), so batching work saves nothing.
"""

from __future__ import annotations

import hashlib
import math
import time
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, cast

from .reduce import DTYPES, OutOfTime

if TYPE_CHECKING:  # protocol imports the switch's modules: a type only, not an import cycle
    from ..contract.protocol import TensorData

#: what :func:`digest` keeps of a sha256 (hex digits)
DIGEST_CHARS = 16


class FnParams(TypedDict, total=False):
    """A judge's function's params, as a grader gives them (``{"fn": name, "params": ...}``);
    each function reads the ones it takes."""

    label: str  # what the learner's code calls it (a trace and a message say it)
    scale: float  # affine, scores
    shift: float  # affine, backward
    factors: list[float]  # expert: one per local expert
    unit: int  # elements one call covers (the switch's charge, ``units``)
    dim: int  # a row's elements (row-wise pairs)
    items: list[TensorData]  # a generator's items
    count: int  # a generator's item count, public
    dtype: str  # a generator's or a symmetric buffer's dtype, public
    numel: int  # a symmetric buffer's elements, public


class FunctionError(ValueError):
    """A call the function cannot make (the caller's error); ``zh`` is its Chinese text."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh


def _affine(params: FnParams, x: list[Any], shape: list[int],
            args: list[int] | None) -> list[Any]:
    """``x * scale + shift``: exact for the judge's dyadic inputs, and tells stages apart."""
    if args is not None:
        raise FunctionError("this stage function takes one tensor", "该 stage 函数只接受一个张量")
    scale, shift = params.get("scale", 1), params.get("shift", 0)
    return [v * scale + shift for v in x]


def _expert(params: FnParams, x: list[Any], shape: list[int],
            args: list[int] | None) -> list[Any]:
    """One rank's experts of a mixture of experts: ``expert(tokens, counts)`` takes the rows of
    ``tokens`` grouped by local expert (``counts[i]`` rows for local expert i, in order) and
    multiplies local expert i's by ``params["factors"][i]``."""
    factors = list(params["factors"])
    sizes = args if args is not None else []
    if len(sizes) != len(factors):
        raise FunctionError(
            f"expert: counts has {len(sizes)} entries; this rank has {len(factors)} experts "
            "(one count each)",
            f"expert：counts 有 {len(sizes)} 项；本 rank 有 {len(factors)} 个专家，每个专家一项")
    rows = shape[0] if shape else 0
    if any(size < 0 for size in sizes) or sum(sizes) != rows:
        raise FunctionError(f"expert: counts {sizes} do not add up to the {rows} rows of tokens",
                            f"expert：counts {sizes} 之和不等于 tokens 的 {rows} 行")
    width = len(x) // rows if rows else 0
    out: list[Any] = []
    for factor, size in zip(factors, sizes, strict=True):
        out += [v * factor for v in x[len(out):len(out) + size * width]]
    return out


def _layer(params: FnParams, w: list[Any], x: list[Any]) -> list[Any]:
    """A layer whose parameters come with the call: ``x + Σ_j (j + 1) · w[j]`` elementwise, so
    the layer's full parameters, in order, decide its output."""
    shift = sum((j + 1) * v for j, v in enumerate(w))
    return [v + shift for v in x]


def _backward(params: FnParams, x: list[Any], grad: list[Any]) -> list[Any]:
    """A stage's backward: the gradient of its input from the input ``x`` it stashed in the
    forward and the gradient ``grad`` of its output, ``grad + x + shift``."""
    if len(x) != len(grad):
        raise FunctionError(f"backward: x has {len(x)} elements, grad {len(grad)}; they are one "
                            "microbatch's input and output gradient (the same shape)",
                            f"backward：x 有 {len(x)} 个元素，grad 有 {len(grad)} 个；它们是同一个"
                            "微批次的输入与输出梯度（形状相同）")
    shift = params.get("shift", 0)
    return [g + v + shift for v, g in zip(x, grad, strict=True)]


def _scores(params: FnParams, q: list[Any], k: list[Any]) -> list[Any]:
    """Attention scores of a block of queries against a block of keys, ``q @ k.T * scale``:
    rows of ``params["dim"]`` elements, (rows of q) × (rows of k) out."""
    d, scale = int(params["dim"]), params.get("scale", 1)
    if len(q) % d or len(k) % d:
        raise FunctionError(f"scores: q and k must be matrices of {d} columns",
                            f"scores：q 和 k 必须是 {d} 列的矩阵")
    keys = [k[j:j + d] for j in range(0, len(k), d)]
    return [math.fsum(a * b for a, b in zip(q[i:i + d], key, strict=True)) * scale
            for i in range(0, len(q), d) for key in keys]


#: name -> the function over a tensor's elements (and its small integer arguments)
FUNCTIONS: dict[str, Callable[[FnParams, list[Any], list[int], list[int] | None],
                              list[Any]]] = {"affine": _affine, "expert": _expert}
#: pair functions that answer a row per row of their first tensor (``params["dim"]`` elements a
#: row): their output, and their work, grow with the product of their inputs (:func:`cost`)
ROWWISE = frozenset({"scores"})
#: steps of pure Python (a multiply-add; an output element costs :data:`PER_OUTPUT` more) the
#: judge may do per second at best: :func:`cost` refuses only work no machine ends in time
STEPS_PER_S = 30_000_000
PER_OUTPUT = 8
#: steps of a row-wise call between two looks at the deadline (milliseconds)
SLICE_STEPS = 1 << 15
#: name -> the function of two tensors' elements
PAIRS: dict[str, Callable[[FnParams, list[Any], list[Any]], list[Any]]] = {
    "layer": _layer, "backward": _backward, "scores": _scores}
#: generators fed a tensor each call, which must be the answered item's dtype and size (a
#: training step given the step's all-reduced result answers the next gradient: graders check
#: what it was given, so the next input is released only to a rank that has the last result)
FED = frozenset({"train_step"})
#: generators: each call answers the next of ``params["items"]`` (tensors), none once all are
GENERATORS = frozenset({"gradients"}) | FED
#: symmetric memory (``switch.symm``): buffers every rank loads from and stores into
MEMORY = "symm"
#: name -> the params the rank may see (the generator's item count and dtype, the buffer's)
PUBLIC: dict[str, tuple[str, ...]] = {"gradients": ("count", "dtype"), MEMORY: ("numel", "dtype")}


def split(value: Any) -> tuple[Any, list[tuple[str, FnParams]]]:
    """``value`` with every judge function's params replaced by a handle, and the handles'
    (name, params), by handle. Tensors are shared, not copied."""
    table: list[tuple[str, FnParams]] = []

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            return [walk(item) for item in v]
        if not isinstance(v, dict) or "data" in v:
            return v
        if "fn" in v:
            name = v["fn"]
            if name not in FUNCTIONS and name not in PAIRS and name not in GENERATORS \
                    and name != MEMORY:
                raise ValueError(f"the judge has no function {name!r}")
            given = dict(v.get("params") or {})
            table.append((str(name), cast(FnParams, given)))  # a grader's params: trusted
            return {"fn": str(name), "handle": len(table) - 1,
                    "label": str(given.get("label", name)),
                    **{k: given[k] for k in PUBLIC.get(name, ()) if k in given}}
        return {k: walk(item) for k, item in v.items()}

    return walk(value), table


def units(params: FnParams, elements: int) -> int:
    """How many calls' worth one call on ``elements`` elements is: with ``params["unit"]``
    (elements one call covers, e.g. one microbatch's) ⌈elements / unit⌉, at least one."""
    unit = params.get("unit")
    if not isinstance(unit, int) or isinstance(unit, bool) or unit < 1:
        return 1
    return max(1, -(-elements // unit))


def unit_bytes(params: FnParams, dtype: str) -> int | None:
    """Bytes of one unit of a call's output (``params["unit"]`` elements of ``dtype``), None
    without a unit."""
    unit = params.get("unit")
    if not isinstance(unit, int) or isinstance(unit, bool) or unit < 1:
        return None
    return unit * DTYPES[dtype][1]


def pieces(out: bytes, unit: int | None) -> list[bytes]:
    """What a call's output ``out`` may travel as: the whole, and each unit of ``unit`` bytes
    when it holds several (a stacked call's microbatches, sent one by one)."""
    if unit is None or len(out) <= unit or len(out) % unit:
        return [out]
    return [out] + [out[i:i + unit] for i in range(0, len(out), unit)]


def digest(payload: bytes) -> str:
    """A short digest of a payload's bytes, as the trace records a call's input and output."""
    return hashlib.sha256(payload).hexdigest()[:DIGEST_CHARS]


def pack(values: list[Any], dtype: str) -> bytes:
    """Elements as raw bytes of ``dtype`` (the judge's dtypes only)."""
    return array(DTYPES[dtype][0], values).tobytes()


def front(name: str, args: list[int] | None) -> int:
    """Elements of a call's payload before its last tensor: a pair's first tensor's
    (``args[0]``), else none; :class:`FunctionError` if ``args`` do not say it."""
    if name not in PAIRS:
        return 0
    if args is None or len(args) != 1 or args[0] < 0:
        raise FunctionError(f"{name} takes two tensors", f"{name} 接受两个张量")
    return args[0]


def item(params: FnParams, index: int) -> tuple[list[Any], str]:
    """A generator's ``index``-th item (its elements and dtype); :class:`FunctionError` past
    the last."""
    items = params.get("items") or []
    if index >= len(items):
        raise FunctionError(f"the generator has yielded all its {len(items)} items",
                            f"生成器的 {len(items)} 项已全部产出")
    return list(items[index]["data"]), str(items[index]["dtype"])


def next_item(params: FnParams, yielded: dict[Any, int], key: Any,
              given: tuple[str, int] | None = None) -> tuple[bytes, str, int]:
    """A generator's next item (bytes, dtype, elements); ``yielded`` counts what each ``key``
    (a rank's handle) was given so far. A :data:`FED` generator's call was ``given`` a tensor
    of (dtype, elements): :class:`FunctionError` unless they are the item's."""
    index = yielded.get(key, 0)
    data, dtype = item(params, index)
    if given is not None and given != (dtype, len(data)):
        raise FunctionError(f"this function takes a {dtype} tensor of {len(data)} elements, not "
                            f"a {given[0]} tensor of {given[1]}",
                            f"该函数接受含 {len(data)} 个元素的 {dtype} 张量，而不是含 {given[1]} "
                            f"个元素的 {given[0]} 张量")
    yielded[key] = index + 1
    return pack(data, dtype), dtype, len(data)


def cost(name: str, params: FnParams, before: int, elements: int) -> tuple[int, float]:
    """A call's output elements and seconds of work at best (``STEPS_PER_S``), known before it
    runs from its input: ``before`` elements of a pair's first tensor, ``elements`` of its last."""
    if name in ROWWISE:
        d = max(int(params["dim"]), 1)
        out = (before // d) * (elements // d)
        return out, out * (d + PER_OUTPUT) / STEPS_PER_S
    return elements, (before + elements) / STEPS_PER_S


def _rowwise(name: str, params: FnParams, first: list[Any], last: list[Any],
             deadline: float | None) -> list[Any]:
    """``PAIRS[name]`` on a slice of the first tensor's rows at a time; :class:`OutOfTime` once
    ``deadline`` (``time.monotonic()``) has passed between two slices."""
    d = max(int(params["dim"]), 1)
    per_row = len(last) + PER_OUTPUT * len(last) // d
    step = d * max(1, SLICE_STEPS // max(per_row, 1))
    out: list[Any] = []
    for lo in range(0, max(len(first), 1), step):
        if deadline is not None and time.monotonic() > deadline:
            raise OutOfTime
        out += PAIRS[name](params, first[lo:lo + step], last)
    return out


def apply(name: str, params: FnParams, payload: bytes, dtype: str, shape: list[int],
          args: list[int] | None, deadline: float | None = None) -> bytes:
    """The output bytes of the judge's function ``name`` on a tensor of ``shape`` and ``dtype``
    given as ``payload`` (checked by the caller; a pair's first tensor before it, see
    :func:`front`), with ``args``; :class:`FunctionError` if the function cannot take them,
    :class:`OutOfTime` if a row-wise one is still at work when ``deadline`` passes."""
    typecode, _, kind = DTYPES[dtype]
    if kind == 0:
        raise FunctionError("a judge's function takes a tensor of numbers, not of bool",
                            "评测机的函数只接受数值张量，不接受 bool 张量")
    x = array(typecode)
    x.frombytes(payload)
    values = x.tolist()
    if name in PAIRS:
        cut = front(name, args)
        first, last = values[:cut], values[cut:]
        out = _rowwise(name, params, first, last, deadline) if name in ROWWISE else \
            PAIRS[name](params, first, last)
    else:
        out = FUNCTIONS[name](params, values, shape, args)
    try:
        return pack(out, dtype)
    except (OverflowError, TypeError):
        raise FunctionError(f"the result does not fit in {dtype}",
                            f"结果无法用 {dtype} 表示") from None
