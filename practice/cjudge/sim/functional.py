"""Functions of the ``torch`` namespace that work on existing tensors: ``cat``, ``stack`` …,
and those of ``torch.nn.functional`` (``gelu``, ``layer_norm``)."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any

from ..exercise import special
from . import layout
from .dtypes import Number, int64, result_type, to_array
from .tensor import Tensor
from .tensor_math import type_title


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.cat``: tensors joined along an existing dimension."""
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    parts = [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)] or [tensors[0]]
    first = parts[0]
    d = layout.normalize_dim(dim, first.dim())
    for i, t in enumerate(parts):
        if t.dim() != first.dim():
            raise RuntimeError("Tensors must have same number of dimensions: got "
                               f"{first.dim()} and {t.dim()}")
        for k, (a, b) in enumerate(zip(first._shape, t._shape, strict=True)):
            if k != d and a != b:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                    f"got size {b} for tensor number {i} in the list."
                )
    dtype = result_type([t.dtype for t in parts], [], [])
    outer = layout.numel(first._shape[:d])
    blocks = [(t._values_as(dtype, t._shape), layout.numel(t._shape[d:])) for t in parts]
    out = array(dtype.typecode)
    for o in range(outer):
        for values, block in blocks:
            out += values[o * block:(o + 1) * block]
    shape = first._shape[:d] + (sum(t._shape[d] for t in parts),) + first._shape[d + 1:]
    return Tensor._wrap(out, dtype, shape)


concat = cat
concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """``torch.stack``: tensors of one shape joined along a new dimension."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(t._shape)} at entry {i}"
            )
    d = layout.normalize_dim(dim, len(shape) + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


def equal(a: Tensor, b: Tensor) -> bool:
    """``torch.equal``: same shape and same values."""
    return a.equal(b)


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """``torch.allclose``."""
    return a.allclose(b, rtol, atol, equal_nan)


def isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """``torch.isclose``."""
    return a.isclose(b, rtol, atol, equal_nan)


def where(condition: Tensor, x: Tensor | Number, y: Tensor | Number) -> Tensor:
    """``torch.where(condition, x, y)``: ``x`` where the condition holds, else ``y``."""
    tensors = [t for t in (condition, x, y) if isinstance(t, Tensor)]
    shape = layout.broadcast_shapes(*(t._shape for t in tensors))
    operands = [t for t in (x, y) if isinstance(t, Tensor)]
    dtype = result_type([t.dtype for t in operands if t._shape],
                        [t.dtype for t in operands if not t._shape],
                        [v for v in (x, y) if not isinstance(v, Tensor)])
    xs, ys = (v._values_as(dtype, shape) if isinstance(v, Tensor)
              else to_array([v], dtype) * layout.numel(shape) for v in (x, y))
    cond = condition._values_as(condition.dtype, shape)
    values = [a if c else b for c, a, b in zip(cond, xs, ys, strict=True)]
    return Tensor._wrap(to_array(values, dtype, dtype), dtype, shape)


def numel(t: Tensor) -> int:
    """``torch.numel``."""
    return t.numel()


def is_tensor(obj: Any) -> bool:
    """``torch.is_tensor``."""
    return isinstance(obj, Tensor)


def is_floating_point(t: Tensor) -> bool:
    """``torch.is_floating_point``."""
    return t.is_floating_point()


def repeat_interleave(input: Tensor, repeats: int | Tensor | None = None, dim: int | None = None,
                      *, output_size: int | None = None) -> Tensor:
    """``torch.repeat_interleave``; with a tensor alone, each index repeated as often as it says."""
    if repeats is None:
        if input.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        index = Tensor._wrap(array("q", range(input.numel())), int64, (input.numel(),))
        return index.repeat_interleave(input, output_size=output_size)
    return input.repeat_interleave(repeats, dim, output_size=output_size)


def _floating(t: Tensor, kernel: str) -> None:
    """torch's error for a float-only kernel given integers."""
    if t.dtype.kind != 2:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_title(t.dtype)}\'')


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``torch.nn.functional.gelu``: x·Φ(x) (``approximate="tanh"``: its tanh approximation),
    computed in double and rounded once, with ``cjudge.exercise.special``'s erf and tanh (the same bits
    in the browser as in CPython)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating(input, "GeluKernelImpl")
    if approximate == "tanh":
        c = math.sqrt(2 / math.pi)
        values = [0.5 * v * (1 + special.tanh(c * (v + 0.044715 * v ** 3))) for v in input._read()]
    else:
        values = [0.5 * v * (1 + special.erf(v / math.sqrt(2))) for v in input._read()]
    return Tensor._wrap(to_array(values, input.dtype), input.dtype, input._shape)


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:
    """``torch.nn.functional.layer_norm``: each group of the last dimensions (``normalized_shape``)
    shifted to mean 0 and scaled by 1/sqrt(variance + eps) (the biased variance, over n), then
    times ``weight`` and plus ``bias``; computed in double and rounded once."""
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")
    shape = tuple(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t._shape)} and normalized_shape = "
                               f"{list(shape)}")
    if len(shape) > input.dim() or input._shape[input.dim() - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input._shape)}")
    _floating(input, "LayerNormKernelImpl")
    size = layout.numel(shape)
    scale = weight._read() if weight is not None else [1.0] * size
    shift = bias._read() if bias is not None else [0.0] * size
    values, out = input._read(), []
    for at in range(0, len(values), size or 1):
        group = values[at:at + size]
        mean = math.fsum(group) / size
        inv = 1 / math.sqrt(math.fsum((v - mean) ** 2 for v in group) / size + eps)
        out += [(v - mean) * inv * w + b for v, w, b in zip(group, scale, shift, strict=True)]
    return Tensor._wrap(to_array(out, input.dtype), input.dtype, input._shape)


#: the functions of ``torch.nn.functional``
NN_FUNCTIONAL = ("gelu", "layer_norm")


#: torch functions that are the tensor method of the same name applied to the first argument
METHODS = (
    "add", "sub", "mul", "div", "abs", "neg", "sqrt", "clamp", "clip", "sum", "prod", "mean", "var", "std",
    "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "eq", "ne", "maximum",
    "minimum", "exp", "log", "round", "softmax", "logsumexp", "chunk", "split", "tensor_split",
    "narrow", "select", "unbind", "flatten", "reshape", "transpose", "swapaxes", "t", "permute",
    "movedim", "unsqueeze", "squeeze", "clone", "ravel", "flip", "roll", "index_select", "gather",
    "scatter_add", "index_add", "bincount", "sort", "argsort", "topk", "cumsum", "matmul", "mm",
    "bmm", "dot",
)


def method_function(name: str) -> Any:
    """``torch.<name>(t, …)`` as ``t.<name>(…)``."""

    def call(t: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(t).__name__}")
        return getattr(t, name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``torch.{name}(t, …)``: see ``Tensor.{name}``."
    return call
