"""Functions of the ``torch`` namespace that work on existing tensors: ``cat``, ``stack`` …"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from . import layout
from .dtypes import Number, int64, result_type, to_array
from .tensor import Tensor


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


#: torch functions that are the tensor method of the same name applied to the first argument
METHODS = (
    "add", "sub", "mul", "div", "abs", "neg", "sqrt", "clamp", "clip", "sum", "prod", "mean",
    "max", "min", "amax", "amin", "argmax", "argmin", "all", "any", "eq", "ne", "maximum",
    "minimum", "chunk", "split", "tensor_split", "narrow", "select", "unbind", "flatten",
    "reshape", "transpose", "swapaxes", "t", "permute", "movedim", "unsqueeze", "squeeze",
    "clone", "ravel", "flip", "roll", "index_select", "gather", "scatter_add", "index_add",
    "bincount", "sort", "argsort", "topk", "cumsum", "matmul", "mm", "bmm", "dot",
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
