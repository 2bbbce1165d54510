"""Tensor constructors: ``tensor``, ``arange``, ``zeros`` …, the random ones, and TensorData."""

from __future__ import annotations

import math
from array import array
from typing import Any

from ..contract.protocol import TensorData
from .dtypes import BY_NAME, DType, Number, bool_, check_dtype, float32, int64, scalar_dtype, to_array
from .errors import Unsupported
from .layout import Shape, numel
from .rng import Generator, default_generator
from .tensor import Device, Tensor, _shape_arg


def _options(dtype: Any = None, device: Any = None, requires_grad: bool = False,
             pin_memory: bool = False, layout: Any = None, **extra: Any) -> DType | None:
    """Check the keyword options every constructor accepts; returns the dtype, if given."""
    if extra:
        raise Unsupported(f"the argument(s) {', '.join(sorted(extra))}")
    if requires_grad:
        raise Unsupported("requires_grad=True (autograd)")
    if device is not None:
        Device(device)
    return None if dtype is None else check_dtype(dtype)


def _filled(shape: Shape, value: Number, dtype: DType) -> Tensor:
    return Tensor._wrap(to_array([value], dtype) * numel(shape), dtype, shape)


def _flatten(data: Any) -> tuple[list[Any], Shape]:
    """Nested sequences of numbers as a flat list and their shape."""
    if isinstance(data, Tensor):
        return data._read().tolist(), data._shape
    if not isinstance(data, (list, tuple)):
        if isinstance(data, (bool, int, float)):
            return [data], ()
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if not data:
        return [], (0,)
    parts = [_flatten(x) for x in data]
    inner = parts[0][1]
    if any(p[1] != inner for p in parts):
        raise ValueError(f"expected sequence of length {inner[0] if inner else 0} at dim 1")
    return [v for p in parts for v in p[0]], (len(data),) + inner


def tensor(data: Any, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.tensor``: a new tensor holding a copy of ``data`` (numbers or nested lists)."""
    dtype = _options(dtype, **options)
    values, shape = _flatten(data)
    if dtype is None:
        if isinstance(data, Tensor):
            dtype = data.dtype
        elif not values:
            dtype = float32
        else:
            kinds = {scalar_dtype(v).kind for v in values}
            dtype = float32 if 2 in kinds else int64 if 1 in kinds else bool_
    return Tensor._wrap(to_array(values, dtype), dtype, shape)


def as_tensor(data: Any, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.as_tensor``: ``data`` itself when it is a tensor of that dtype, else a copy."""
    if isinstance(data, Tensor) and (dtype is None or dtype is data.dtype):
        return data
    return tensor(data, dtype, **options)


def arange(start: Number, end: Number | None = None, step: Number = 1, dtype: Any = None,
           **options: Any) -> Tensor:
    """``torch.arange``: ``start, start+step, …`` below ``end``."""
    dtype = _options(dtype, **options)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = float32 if any(isinstance(x, float) for x in (start, end, step)) else int64
    n = max(math.ceil((end - start) / step), 0)
    return Tensor._wrap(to_array([start + i * step for i in range(n)], dtype), dtype, (n,))


def linspace(start: Number, end: Number, steps: int, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.linspace``: ``steps`` evenly spaced values from ``start`` to ``end``."""
    dtype = _options(dtype, **options) or float32
    if steps == 1:
        values = [start]
    else:
        values = [start + (end - start) * i / (steps - 1) for i in range(steps)]
    return Tensor._wrap(to_array(values, dtype), dtype, (steps,))


def zeros(*size: Any, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.zeros``."""
    return _filled(_shape_arg(size), 0, _options(dtype, **options) or float32)


def ones(*size: Any, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.ones``."""
    return _filled(_shape_arg(size), 1, _options(dtype, **options) or float32)


def empty(*size: Any, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.empty`` (its elements are zeros here)."""
    return _filled(_shape_arg(size), 0, _options(dtype, **options) or float32)


def full(size: Any, fill_value: Number, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.full``: every element ``fill_value`` (dtype from the value unless given)."""
    dtype = _options(dtype, **options) or scalar_dtype(fill_value)
    return _filled(_shape_arg((size,)), fill_value, dtype)


def zeros_like(t: Tensor, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.zeros_like``."""
    return _filled(t._shape, 0, _options(dtype, **options) or t.dtype)


def ones_like(t: Tensor, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.ones_like``."""
    return _filled(t._shape, 1, _options(dtype, **options) or t.dtype)


def empty_like(t: Tensor, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.empty_like`` (its elements are zeros here)."""
    return _filled(t._shape, 0, _options(dtype, **options) or t.dtype)


def full_like(t: Tensor, fill_value: Number, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.full_like``."""
    return _filled(t._shape, fill_value, _options(dtype, **options) or t.dtype)


def _random(size: tuple[Any, ...], generator: Generator | None, dtype: DType | None,
            draw: str) -> Tensor:
    """``size``'s tensor of ``draw`` values (``"normal"``, else uniform) of ``dtype``
    (:func:`_options`'s; None: float32)."""
    dtype = dtype or float32
    if not dtype.is_floating_point:
        raise RuntimeError(f"\"{draw}\" not implemented for '{dtype.name}'")
    shape = _shape_arg(size)
    rnd = (generator or default_generator()).random
    if draw == "normal":
        values = [rnd.gauss(0.0, 1.0) for _ in range(numel(shape))]
    else:
        values = [rnd.random() for _ in range(numel(shape))]
    return Tensor._wrap(to_array(values, dtype), dtype, shape)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.randn``: standard normal samples from the (seeded) generator."""
    return _random(size, generator, _options(dtype, **options), "normal")


def rand(*size: Any, generator: Generator | None = None, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.rand``: uniform samples in [0, 1) from the (seeded) generator."""
    return _random(size, generator, _options(dtype, **options), "uniform")


def randint(low: int, high: int | None = None, size: Any = None, *,
            generator: Generator | None = None, dtype: Any = None, **options: Any) -> Tensor:
    """``torch.randint(low=0, high, size)``: integers in ``[low, high)``."""
    if size is None:
        low, high, size = 0, low, high
    dtype = _options(dtype, **options) or int64
    shape = _shape_arg((size,))
    rnd = (generator or default_generator()).random
    values = [rnd.randrange(low, high) for _ in range(numel(shape))]
    return Tensor._wrap(to_array(values, dtype), dtype, shape)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None,
             **options: Any) -> Tensor:
    """``torch.randperm``: a random permutation of ``0 … n-1``."""
    dtype = _options(dtype, **options) or int64
    values = list(range(n))
    (generator or default_generator()).random.shuffle(values)
    return Tensor._wrap(to_array(values, dtype), dtype, (n,))


def from_data(data: TensorData) -> Tensor:
    """A tensor from its plain-data form (see protocol.TensorData)."""
    dtype = BY_NAME[data["dtype"]]
    shape = tuple(data["shape"])
    if len(data["data"]) != numel(shape):
        raise ValueError(f"TensorData holds {len(data['data'])} values for shape {list(shape)}")
    return Tensor._wrap(to_array(data["data"], dtype), dtype, shape)


def to_data(t: Tensor) -> TensorData:
    """The plain-data form of a tensor (see protocol.TensorData)."""
    values: array[Any] = t._read()
    return {"shape": list(t._shape), "dtype": t.dtype.name, "data": values.tolist()}
