"""Tensor arithmetic, comparisons and reductions (a mixin of ``Tensor``), with torch's
broadcasting and type promotion."""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Any, NamedTuple, Self

from . import layout
from .dtypes import (
    DType,
    Number,
    bool_,
    can_cast,
    float32,
    int64,
    is_number,
    result_type,
    to_array,
)
from .layout import Shape

if TYPE_CHECKING:
    from .tensor import Tensor

#: the ``dim`` of a reduction: none (all elements), one, or several
Dims = int | Sequence[int] | None

class ValuesIndices(NamedTuple):
    """What ``max(dim)``, ``min(dim)``, ``sort`` and ``topk`` return: ``(values, indices)``."""

    values: Tensor
    indices: Tensor


class TensorMath:
    """Elementwise ops, in-place ops and reductions; mixed into ``Tensor``."""

    __slots__ = ()

    if TYPE_CHECKING:  # provided by Tensor
        _store: array[Any]
        _dtype: DType
        _shape: Shape

        @classmethod
        def _wrap(cls, values: array[Any], dtype: DType, shape: Shape) -> Tensor: ...
        def _read(self) -> array[Any]: ...
        def _write(self, values: array[Any]) -> None: ...
        def _values_as(self, dtype: DType, shape: Shape) -> array[Any]: ...
        def dim(self) -> int: ...
        def numel(self) -> int: ...
        def movedim(self, source: int, destination: int) -> Tensor: ...
        def unsqueeze(self, dim: int) -> Tensor: ...
        def clone(self) -> Tensor: ...
        def permute(self, *dims: Any) -> Tensor: ...
        def reshape(self, *shape: Any) -> Tensor: ...
        def expand(self, *sizes: Any) -> Tensor: ...
        def transpose(self, dim0: int, dim1: int) -> Tensor: ...
        def to(self, *args: Any, **kwargs: Any) -> Tensor: ...

    def _inplace(self, other: Tensor | Number, fn: Callable[[Any, Any], Any],
                 divide: bool = False) -> Self:
        result = _elementwise(self, other, fn, divide=divide)
        if not can_cast(result._dtype, self._dtype):
            raise RuntimeError(
                f"result type {type_title(result._dtype)} can't be cast to the desired output "
                f"type {type_title(self._dtype)}"
            )
        if result._shape != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(result._shape)}"
            )
        values = result._store
        if result._dtype is not self._dtype:
            values = to_array(values, self._dtype, result._dtype)
        self._write(values)
        return self

    def add_(self, other: Tensor | Number, alpha: Number = 1) -> Self:
        """In place: ``self += alpha * other``."""
        return self._inplace(_scaled(other, alpha), operator.add)

    def sub_(self, other: Tensor | Number, alpha: Number = 1) -> Self:
        """In place: ``self -= alpha * other``."""
        return self._inplace(_scaled(other, alpha), operator.sub)

    def mul_(self, other: Tensor | Number) -> Self:
        """In place: ``self *= other``."""
        return self._inplace(other, operator.mul)

    def div_(self, other: Tensor | Number) -> Self:
        """In place: ``self /= other``."""
        return self._inplace(other, operator.truediv, divide=True)

    def neg_(self) -> Self:
        """In place: ``self = -self``."""
        return self.mul_(-1)

    def abs_(self) -> Self:
        """In place: ``self = |self|``."""
        self._write(self.abs()._store)
        return self

    def clamp_(self, min: Number | None = None, max: Number | None = None) -> Self:
        """In place: ``clamp``."""
        self._write(to_array(self.clamp(min, max)._read(), self._dtype, self._dtype))
        return self

    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_

    # ---- arithmetic and comparisons --------------------------------------------------------

    def add(self, other: Tensor | Number, alpha: Number = 1) -> Tensor:
        """``self + alpha * other``."""
        return _elementwise(self, _scaled(other, alpha), operator.add)

    def sub(self, other: Tensor | Number, alpha: Number = 1) -> Tensor:
        """``self - alpha * other``."""
        return _elementwise(self, _scaled(other, alpha), operator.sub)

    def mul(self, other: Tensor | Number) -> Tensor:
        """``self * other``."""
        return _elementwise(self, other, operator.mul)

    def div(self, other: Tensor | Number) -> Tensor:
        """``self / other``."""
        return _elementwise(self, other, operator.truediv, divide=True)

    def __add__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.add)

    def __radd__(self, other: Number) -> Tensor:
        return _elementwise(other, self, operator.add)

    def __sub__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.sub)

    def __rsub__(self, other: Number) -> Tensor:
        return _elementwise(other, self, operator.sub)

    def __mul__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.mul)

    def __rmul__(self, other: Number) -> Tensor:
        return _elementwise(other, self, operator.mul)

    def __truediv__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.truediv, divide=True)

    def __rtruediv__(self, other: Number) -> Tensor:
        return _elementwise(other, self, operator.truediv, divide=True)

    def __floordiv__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, _floor_div)

    def __mod__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, _mod)

    def __pow__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.pow)

    def __rpow__(self, other: Number) -> Tensor:
        return _elementwise(other, self, operator.pow)

    def __neg__(self) -> Tensor:
        return _elementwise(self, -1, operator.mul)

    def __pos__(self) -> Tensor:
        return self.clone()

    def __abs__(self) -> Tensor:
        return self.abs()

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, TensorMath) and not is_number(other):
            return NotImplemented
        return _elementwise(self, other, operator.eq, compare=True)

    def __ne__(self, other: object) -> Any:
        if not isinstance(other, TensorMath) and not is_number(other):
            return NotImplemented
        return _elementwise(self, other, operator.ne, compare=True)

    def __lt__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.lt, compare=True)

    def __le__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.le, compare=True)

    def __gt__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.gt, compare=True)

    def __ge__(self, other: Tensor | Number) -> Tensor:
        return _elementwise(self, other, operator.ge, compare=True)

    def eq(self, other: Tensor | Number) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return _elementwise(self, other, operator.eq, compare=True)

    def ne(self, other: Tensor | Number) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return _elementwise(self, other, operator.ne, compare=True)

    def equal(self, other: Tensor) -> bool:
        """Same shape and same values."""
        if self._shape != other._shape:
            return False
        mine, theirs = self._read(), other._read()
        if mine.typecode == theirs.typecode:
            return mine == theirs
        return mine.tolist() == theirs.tolist()

    def allclose(self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                 equal_nan: bool = False) -> bool:
        """Whether ``|self - other| <= atol + rtol * |other|`` everywhere."""
        _same_dtype(self, other)
        shape = layout.broadcast_shapes(self._shape, other._shape)
        mine, theirs = self._values_as(self._dtype, shape), other._values_as(other._dtype, shape)
        return mine == theirs or all(map(_closeness(rtol, atol, equal_nan), mine, theirs))

    def isclose(self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
                equal_nan: bool = False) -> Tensor:
        """Elementwise closeness as a bool tensor (dtypes must match, as in torch)."""
        _same_dtype(self, other)
        return _elementwise(self, other, _closeness(rtol, atol, equal_nan), compare=True)

    def maximum(self, other: Tensor) -> Tensor:
        """Elementwise maximum."""
        return _elementwise(self, other, max)

    def minimum(self, other: Tensor) -> Tensor:
        """Elementwise minimum."""
        return _elementwise(self, other, min)

    def abs(self) -> Tensor:
        """Elementwise absolute value."""
        return self._wrap(to_array(list(map(abs, self._read())), self._dtype, self._dtype),
                            self._dtype, self._shape)

    def neg(self) -> Tensor:
        """Elementwise negation."""
        return -self

    def sqrt(self) -> Tensor:
        """Elementwise square root (NaN for negatives)."""
        dtype = self._dtype if self._dtype.kind == 2 else float32
        values = [math.sqrt(v) if v >= 0 else math.nan for v in self._read()]
        return self._wrap(to_array(values, dtype), dtype, self._shape)

    def _unary(self, fn: Callable[[float], float]) -> Tensor:
        """``fn`` of each element, computed in double and rounded once (integers give float32)."""
        dtype = self._dtype if self._dtype.kind == 2 else float32
        return self._wrap(to_array([fn(v) for v in self._read()], dtype), dtype, self._shape)

    def exp(self) -> Tensor:
        """Elementwise e**x (inf past the float's range)."""
        return self._unary(_exp)

    def log(self) -> Tensor:
        """Elementwise natural logarithm (-inf at 0, NaN below)."""
        return self._unary(_log)

    def round(self) -> Tensor:
        """Elements rounded to the nearest integer, halves to even (integers unchanged)."""
        if self._dtype.kind != 2:
            return self.clone()
        return self._unary(lambda v: float(round(v)) if math.isfinite(v) else v)

    def softmax(self, dim: int) -> Tensor:
        """exp(x - max) / sum(exp(x - max)) along ``dim`` (floating point only)."""
        if self._dtype.kind != 2:
            last = not self.dim() or layout.normalize_dim(dim, self.dim()) == self.dim() - 1
            kernel = "softmax_lastdim_kernel_impl" if last else "softmax_kernel_impl"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{type_title(self._dtype)}'")
        return self._lane_map(dim, _softmax, self._dtype)

    def logsumexp(self, dim: Dims, keepdim: bool = False) -> Tensor:
        """log(sum(exp(x))) along ``dim``, computed without overflow (integers give float32)."""
        dtype = self._dtype if self._dtype.kind == 2 else float32
        return self._reduce(_logsumexp, dtype, dim, keepdim)

    def clamp(self, min: Number | None = None, max: Number | None = None) -> Tensor:
        """Elements limited to ``[min, max]``."""
        out: Tensor | None = None
        if min is not None:
            out = _elementwise(self, min, _max2)
        if max is not None:
            out = _elementwise(self if out is None else out, max, _min2)
        return self.clone() if out is None else out

    clip = clamp

    # ---- reductions ------------------------------------------------------------------------

    def _lanes(self, dim: int) -> tuple[list[array[Any]], Shape]:
        """The 1-D lanes along ``dim`` and the shape of the reduced result."""
        d = layout.normalize_dim(dim, self.dim())
        values = self.movedim(d, -1)._read() if self.dim() else self._read()
        n = self._shape[d] if self.dim() else 1
        lanes = [values[i:i + n] for i in range(0, len(values), n)] if n else []
        return lanes, self._shape[:d] + self._shape[d + 1:]

    def _lane_map(self, dim: int, fn: Callable[[array[Any]], Iterable[Number]], dtype: DType) -> Tensor:
        """Each 1-D lane along ``dim`` replaced by ``fn(lane)`` (as long), as ``dtype``."""
        d = layout.normalize_dim(dim, self.dim())
        lanes, _ = self._lanes(d)
        values = [v for lane in lanes for v in fn(lane)]
        if not self.dim():
            return self._wrap(to_array(values, dtype), dtype, ())
        out = self._wrap(to_array(values, dtype), dtype, self.movedim(d, -1)._shape)
        return out.movedim(-1, d).contiguous()

    def _reduce(self, fn: Callable[[array[Any]], Number], dtype: DType, dim: Any,
                keepdim: bool) -> Tensor:
        if isinstance(dim, (tuple, list)):
            return self._reduce_dims(fn, dtype, dim, keepdim)
        if dim is None:
            shape: Shape = (1,) * self.dim() if keepdim else ()
            return self._wrap(to_array([fn(self._read())], dtype), dtype, shape)
        lanes, shape = self._lanes(dim)
        if not lanes:
            lanes = [array(self._store.typecode)] * layout.numel(shape)
        out = self._wrap(to_array([fn(lane) for lane in lanes], dtype), dtype, shape)
        return out.unsqueeze(dim) if keepdim and self.dim() else out

    def _reduce_dims(self, fn: Callable[[array[Any]], Number], dtype: DType, dims: Sequence[int],
                     keepdim: bool) -> Tensor:
        """``_reduce`` over several dimensions at once (all of them if ``dims`` is empty)."""
        chosen = [layout.normalize_dim(d, self.dim()) for d in dims] or list(range(self.dim()))
        for d in chosen:
            if chosen.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        kept = [d for d in range(self.dim()) if d not in chosen]
        shape = tuple(self._shape[d] for d in kept)
        size = layout.numel(tuple(self._shape[d] for d in chosen))
        out = self.permute(kept + chosen).reshape(shape + (size,))._reduce(fn, dtype, -1, False)
        for d in sorted(chosen) if keepdim else ():
            out = out.unsqueeze(d)
        return out

    def sum(self, dim: Dims = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        """The sum of all elements, or along ``dim`` (one or several)."""
        out = dtype or (self._dtype if self._dtype.kind == 2 else int64)
        return self._reduce(sum, out, dim, keepdim)

    def prod(self, dim: int | None = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        """The product of all elements, or along ``dim``."""
        out = dtype or (self._dtype if self._dtype.kind == 2 else int64)
        return self._reduce(math.prod, out, dim, keepdim)

    def mean(self, dim: Dims = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
        """The mean of all elements, or along ``dim`` (floating point only)."""
        out = dtype or self._dtype
        if out.kind != 2:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {type_title(self._dtype)}"
            )
        return self._reduce(lambda v: sum(v) / len(v) if len(v) else math.nan, out, dim, keepdim)

    def var(self, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: int | None = None) -> Tensor:
        """The variance of all elements, or along ``dim``: the squared deviations' sum over
        N − ``correction`` (1 by default, torch's unbiased estimate; ``unbiased=False`` or
        ``correction=0``: over N, as layer norm divides). ``var(False)`` is ``unbiased=False``."""
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        if unbiased is not None and correction is not None:
            raise RuntimeError("var: can't specify both unbiased and correction")
        if self._dtype.kind != 2:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        less = (1 if unbiased in (None, True) else 0) if correction is None else correction

        def spread(lane: array[Any]) -> float:
            if len(lane) - less <= 0:
                return math.nan
            mean = math.fsum(lane) / len(lane)
            return math.fsum((v - mean) ** 2 for v in lane) / (len(lane) - less)

        return self._reduce(spread, self._dtype, dim, keepdim)

    def std(self, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
            correction: int | None = None) -> Tensor:
        """The standard deviation: the square root of :meth:`var`, with its arguments."""
        return self.var(dim, unbiased, keepdim, correction=correction).sqrt()

    def _extreme(self, pick: Callable[..., Number], name: str, dim: Any, keepdim: bool) -> Any:
        if isinstance(dim, TensorMath):
            return _elementwise(self, dim, pick)
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is None:
            return self._reduce(pick, self._dtype, None, False)
        values = self._reduce(pick, self._dtype, dim, keepdim)
        indices = self._reduce(lambda lane: lane.index(pick(lane)), int64, dim, keepdim)
        return ValuesIndices(values, indices)

    def max(self, dim: Any = None, keepdim: bool = False) -> Any:
        """The largest element; with ``dim``, (values, indices); with a tensor, the elementwise max."""
        return self._extreme(max, "max", dim, keepdim)

    def min(self, dim: Any = None, keepdim: bool = False) -> Any:
        """The smallest element; with ``dim``, (values, indices); with a tensor, the elementwise min."""
        return self._extreme(min, "min", dim, keepdim)

    def amax(self, dim: Dims = None, keepdim: bool = False) -> Tensor:
        """The largest element, or the largest along ``dim``."""
        return self._reduce(max, self._dtype, dim, keepdim)

    def amin(self, dim: Dims = None, keepdim: bool = False) -> Tensor:
        """The smallest element, or the smallest along ``dim``."""
        return self._reduce(min, self._dtype, dim, keepdim)

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """The index of the largest element (flattened, or along ``dim``)."""
        return self._reduce(lambda v: v.index(max(v)), int64, dim, keepdim)

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """The index of the smallest element (flattened, or along ``dim``)."""
        return self._reduce(lambda v: v.index(min(v)), int64, dim, keepdim)

    def cumsum(self, dim: int, dtype: DType | None = None) -> Tensor:
        """The running sums along ``dim`` (integers and bools give int64)."""
        out = dtype or (self._dtype if self._dtype.kind == 2 else int64)
        src = self if dtype is None else self.to(dtype)
        return src._lane_map(dim, accumulate, out)

    # ---- matrix products -------------------------------------------------------------------

    def matmul(self, other: Tensor) -> Tensor:
        """The matrix product: vectors, matrices, and batches of matrices (broadcast)."""
        return _matmul(self, other)

    __matmul__ = matmul

    def mm(self, other: Tensor) -> Tensor:
        """The product of two matrices."""
        for name, t in (("self", self), ("mat2", other)):
            if t.dim() != 2:
                raise RuntimeError(f"{name} must be a matrix")
        return _matmul(self, other)

    def bmm(self, other: Tensor) -> Tensor:
        """The products of two batches of matrices (3-D, no broadcasting)."""
        for name, t in (("batch1", self), ("batch2", other)):
            if t.dim() != 3:
                raise RuntimeError(f"{name} must be a 3D tensor")
        if self._shape[0] != other._shape[0]:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                               f"{self._shape[0]} and {other._shape[0]}")
        return _matmul(self, other)

    def dot(self, other: Tensor) -> Tensor:
        """The inner product of two vectors."""
        if self.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
        return _matmul(self, other)

    def all(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Whether every element is non-zero."""
        return self._reduce(all, bool_, dim, keepdim)

    def any(self, dim: int | None = None, keepdim: bool = False) -> Tensor:
        """Whether some element is non-zero."""
        return self._reduce(any, bool_, dim, keepdim)


def type_title(dtype: DType) -> str:
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int", "int8": "Char",
            "bool": "Bool"}[dtype.name]


def _same_dtype(a: TensorMath, b: object) -> None:
    if not isinstance(b, TensorMath):
        raise TypeError("argument 'other' must be a Tensor")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{type_title(a._dtype)} did not match {type_title(b._dtype)}")


def _closeness(rtol: float, atol: float, equal_nan: bool) -> Callable[[float, float], bool]:
    """torch's ``isclose`` test for one pair of elements."""

    def close(a: float, b: float) -> bool:
        if a == b:
            return True
        if a != a or b != b:
            return equal_nan and a != a and b != b
        return abs(a - b) <= atol + rtol * abs(b)

    return close


def _scaled(other: Tensor | Number, alpha: Number) -> Tensor | Number:
    if alpha == 1:
        return other
    return _elementwise(other, alpha, operator.mul) if isinstance(other, TensorMath) else other * alpha


def _true_div(a: Number, b: Number) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _floor_div(a: Number, b: Number) -> Number:
    try:
        return a // b
    except ZeroDivisionError:
        if isinstance(a, int) and isinstance(b, int):
            raise ZeroDivisionError("ZeroDivisionError") from None
        return _true_div(a, b)


def _mod(a: Number, b: Number) -> Number:
    try:
        return a % b
    except ZeroDivisionError:
        if isinstance(a, int) and isinstance(b, int):
            raise ZeroDivisionError("ZeroDivisionError") from None
        return math.nan


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _log(v: float) -> float:
    if v > 0:
        return math.log(v)
    return -math.inf if v == 0 else math.nan


def _logsumexp(lane: Sequence[float]) -> float:
    """log(sum(exp(lane))), shifted by the lane's max (-inf for an empty or all -inf lane)."""
    top = max(lane, default=-math.inf)
    if math.isinf(top) or math.isnan(top):
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in lane))


def _softmax(lane: Sequence[float]) -> list[float]:
    top = max(lane, default=0.0)
    weights = [_exp(v - top) for v in lane]
    total = math.fsum(weights)
    return [w / total for w in weights]


def _max2(a: Number, b: Number) -> Number:
    return a if a >= b else b


def _min2(a: Number, b: Number) -> Number:
    return a if a <= b else b


def _matmul(a: TensorMath, b: TensorMath) -> Tensor:
    """torch.matmul: 1-D operands become a row (left) or a column (right), dimensions beyond
    the last two are batch dimensions and broadcast; sums are exact before the final rounding."""
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.dim()}D and {b.dim()}D")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_C_NAMES[a._dtype.name]} != {_C_NAMES[b._dtype.name]}")
    left = a.unsqueeze(0) if a.dim() == 1 else a
    right = b.unsqueeze(1) if b.dim() == 1 else b
    (n, k), (k2, m) = left._shape[-2:], right._shape[-2:]
    if k != k2:
        if a.dim() == 1 and b.dim() == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{k}] and src [{k2}] to have the same "
                f"number of elements, but got {k} and {k2} elements respectively")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    batch = layout.broadcast_shapes(left._shape[:-2], right._shape[:-2])
    rows = left.expand(batch + (n, k))._read()
    cols = right.expand(batch + (k, m)).transpose(-1, -2)._read()
    out: list[Number] = []
    for bi in range(layout.numel(batch)):
        lhs = [rows[(bi * n + i) * k:(bi * n + i + 1) * k] for i in range(n)]
        rhs = [cols[(bi * m + j) * k:(bi * m + j + 1) * k] for j in range(m)]
        out.extend(sum(map(operator.mul, r, c)) for r in lhs for c in rhs)
    shape = batch + ((n,) if a.dim() > 1 else ()) + ((m,) if b.dim() > 1 else ())
    return a._wrap(to_array(out, a._dtype), a._dtype, shape)


_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int8": "signed char", "bool": "bool"}


def _elementwise(a: TensorMath | Number, b: TensorMath | Number, fn: Callable[[Any, Any], Any], *,
                 divide: bool = False, compare: bool = False) -> Tensor:
    """``fn`` applied elementwise with torch's broadcasting and type promotion.

    Operands are converted to the promoted dtype first (a Python float becomes a float32 next to
    a float32 tensor), so float32 results are the correctly rounded float32 operations.
    """
    tensors = [x for x in (a, b) if isinstance(x, TensorMath)]
    scalars = [x for x in (a, b) if not isinstance(x, TensorMath)]
    for s in scalars:
        if not is_number(s):
            raise TypeError(f"unsupported operand type for a tensor op: {type(s).__name__}")
    dims = [t._dtype for t in tensors if t._shape]
    zero_dim = [t._dtype for t in tensors if not t._shape]
    compute = result_type(dims, zero_dim, scalars)
    if divide and compute.kind < 2:
        compute = float32
    shape = layout.broadcast_shapes(*(t._shape for t in tensors))
    args = [x._values_as(compute, shape) if isinstance(x, TensorMath)
            else repeat(to_array([x], compute)[0]) for x in (a, b)]
    dtype = bool_ if compare else compute
    try:
        if dtype.kind == 2:  # straight into the storage: nothing to convert
            return tensors[0]._wrap(array(dtype.typecode, map(fn, *args)), dtype, shape)
        out = list(map(fn, *args))
    except ZeroDivisionError:
        if fn is not operator.truediv:
            raise
        out = list(map(_true_div, *args))
    return tensors[0]._wrap(to_array(out, dtype, dtype), dtype, shape)

