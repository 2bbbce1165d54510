"""What a rank holds of a function the judge hands the learner's call (a pipeline stage, an
expert): a callable that sends its arguments to the switch, which applies the function
(``switch.functions``: the params never reach the rank) and answers the output.

The rank's input names the function by a handle (``{"fn": name, "handle": k, "label": ...}``).
A call takes a tensor and, for some functions, a list of small integers (an expert's ``counts``:
a list, a tuple or an integer tensor) or a second tensor before it (a layer's parameters, a
backward's stashed input: both travel in one payload); its bytes go to the switch with the
learner's line, and the output comes back as a new tensor of the last tensor's shape and dtype.
A generator (``gradients``) takes nothing: calling it gives an iterator whose every step is one
request, answering the next item; a fed one (``train_step``) takes a tensor of the item's size
and dtype and answers the next item. Runtime-agnostic: the caller passes its tensors' plain-data
converters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..contract.protocol import TensorData, bilingual
from ..switch.core import SwitchError
from ..switch.functions import MEMORY, PAIRS, pack
from ..switch.reduce import DTYPES, values_of
from .symm_mem import SymmetricMemory

#: name -> the names of its parameters: a tensor, then at most one list of integers; a pair's
#: (``functions.PAIRS``) two tensors; a generator's none
SIGNATURES: dict[str, tuple[str, ...]] = {"affine": ("x",), "expert": ("tokens", "counts"),
                                          "layer": ("params", "x"), "backward": ("x", "grad"),
                                          "scores": ("q", "k"), "gradients": (),
                                          "train_step": ("result",)}


def _scores_shape(q: list[int], k: list[int]) -> list[int]:
    """``scores(q, k)``'s output shape, (rows of q, rows of k), for two matrices of one width."""
    if len(q) != 2 or len(k) != 2 or q[1] != k[1]:
        raise bilingual(ValueError, f"scores(q, k) takes two matrices with the same number of "
                        f"columns, not shapes {tuple(q)} and {tuple(k)}",
                        f"scores(q, k) 需要两个列数相同的矩阵，而不是形状 {tuple(q)} 和 {tuple(k)}")
    return [q[0], k[0]]


#: name -> its output's shape from its two tensors' shapes, where it is not the last tensor's
OUTPUT_SHAPES: dict[str, Callable[[list[int], list[int]], list[int]]] = {"scores": _scores_shape}


def _integers(value: Any, to_data: Callable[[Any], TensorData | None], what: str) -> list[int]:
    """A list of small integers from a list, a tuple or an integer tensor."""
    data = to_data(value)
    items = data["data"] if data is not None else value
    if not isinstance(items, (list, tuple)) or not all(
            isinstance(v, int) or (isinstance(v, float) and v.is_integer()) for v in items):
        raise bilingual(TypeError, f"{what} must be a list of integers", f"{what} 必须是整数列表")
    return [int(v) for v in items]


#: one request to the switch (payload, dtype, shape, extra, output shape or None): the call's output
Request = Callable[[bytes, str, list[int], list[int] | None, list[int] | None], Any]


def _output(label: str, params: tuple[str, ...], out: bytes, dtype: str, shape: list[int],
            out_shape: list[int] | None) -> TensorData:
    """The switch's answer ``out`` as a call's output, of ``out_shape`` (default: ``shape``); a
    generator's item (no ``params``) is 1-D."""
    data = values_of(out, dtype) or []
    if not params:
        out_shape = [len(data)]
    if out_shape is not None and math.prod(out_shape) != len(data):
        raise bilingual(ValueError, f"{label}(): the judge answered {len(data)} elements, "
                        f"not a {tuple(out_shape)} matrix: give it the tensors it was handed",
                        f"{label}()：评测机返回了 {len(data)} 个元素，而不是 {tuple(out_shape)} "
                        "矩阵：请传入评测机给你的张量")
    return TensorData(shape=out_shape or shape, dtype=dtype, data=data)


def _tensor_data(label: str, to_data: Callable[[Any], TensorData | None], arg: Any,
                 what: str) -> TensorData:
    """The plain data of the argument ``what``, a tensor of a dtype the switch computes in."""
    data = to_data(arg)
    if data is None or data["dtype"] not in DTYPES:
        raise bilingual(TypeError, f"{label}(): {what} must be a tensor of one of "
                        f"{', '.join(DTYPES)}", f"{label}()：{what} 必须是 "
                        f"{', '.join(DTYPES)} 之一的张量")
    return data


def _items(value: Mapping[str, object], request: Request) -> Iterator[Any]:
    """A generator's items, one request each."""
    count = value.get("count", 0)
    if not isinstance(count, (int, float, str)):  # the switch copies it from the grader's params
        raise TypeError(f"a generator's count must be a number, not {count!r}")
    for _ in range(int(count)):
        yield request(b"", str(value.get("dtype", "float32")), [0], None, None)


def _call(name: str, label: str, value: Mapping[str, object], request: Request,
          to_data: Callable[[Any], TensorData | None], args: tuple[object, ...],
          kwargs: dict[str, object]) -> Any:
    """One call of the judge function ``name`` with the learner's arguments, checked against
    its parameters: a tensor, then at most a list of integers; a pair's two tensors; nothing."""
    params = SIGNATURES[name]
    if len(args) > len(params) or set(kwargs) != set(params[len(args):]):
        raise bilingual(TypeError, f"{label}() takes ({', '.join(params)})",
                        f"{label}() 的参数是 ({', '.join(params)})")
    if not params:
        return _items(value, request)
    bound = dict(zip(params, args, strict=False)) | kwargs
    if name in PAIRS:
        return _call_pair(name, label, request, to_data, bound)
    data = _tensor_data(label, to_data, bound[params[0]], params[0])
    payload, extra = pack(data["data"], data["dtype"]), None
    if len(params) > 1:
        extra = _integers(bound[params[1]], to_data, params[1])
    return request(payload, data["dtype"], list(data["shape"]), extra, None)


def _call_pair(name: str, label: str, request: Request, to_data: Callable[[Any], TensorData | None],
               bound: dict[str, object]) -> Any:
    """A pair's call (``functions.PAIRS``): both tensors, of one dtype, in one payload (the
    first's length as the extra); the output shaped as the last, else by :data:`OUTPUT_SHAPES`."""
    params = SIGNATURES[name]
    data = _tensor_data(label, to_data, bound[params[-1]], params[-1])  # the output's shape
    payload = pack(data["data"], data["dtype"])
    first = _tensor_data(label, to_data, bound[params[0]], params[0])
    if first["dtype"] != data["dtype"]:
        raise bilingual(TypeError, f"{label}(): {params[0]} and {params[1]} must have "
                        "one dtype", f"{label}()：{params[0]} 与 {params[1]} 的 dtype "
                        "必须相同")
    payload, extra = pack(first["data"], data["dtype"]) + payload, [len(first["data"])]
    shape = OUTPUT_SHAPES[name](list(first["shape"]), list(data["shape"])) \
        if name in OUTPUT_SHAPES else None
    return request(payload, data["dtype"], list(data["shape"]), extra, shape)


def make(value: Mapping[str, object], port: Any, tensor: Callable[[TensorData], Any],
         to_data: Callable[[Any], TensorData | None],
         line: Callable[[], int | None]) -> Any:
    """The callable the learner receives for the handle ``value``: each call a ``compute``
    request on ``port`` made at the learner's ``line()``; for symmetric memory, its handle
    (``symm_mem``)."""
    name, handle, label = value.get("fn"), value.get("handle"), str(value.get("label", ""))
    if name == MEMORY and isinstance(handle, int) and not isinstance(handle, bool):
        return SymmetricMemory(value, port, tensor, to_data, line)
    if not isinstance(name, str) or name not in SIGNATURES or isinstance(handle, bool) \
            or not isinstance(handle, int):
        raise bilingual(ValueError, f"the judge has no function {name!r}",
                        f"评测机没有函数 {name!r}")
    params = SIGNATURES[name]

    def request(payload: bytes, dtype: str, shape: list[int], extra: list[int] | None,
                out_shape: list[int] | None) -> Any:
        """The output of one call (:func:`_output`)."""
        try:
            out = port.compute(handle, payload, dtype, shape, extra, line())
        except (SwitchError, RuntimeError) as exc:  # the switch's refusal, on either runtime
            raise bilingual(ValueError, str(exc), getattr(exc, "zh", None)) from None
        return tensor(_output(label, params, out, dtype, shape, out_shape))

    def judge_function(*args: Any, **kwargs: Any) -> Any:
        return _call(name, label, value, request, to_data, args, kwargs)

    judge_function.__name__ = judge_function.__qualname__ = label or name
    return judge_function
