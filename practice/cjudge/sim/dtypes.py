"""dtypes of the simulated torch: their storage type codes, casting and type promotion."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import Unsupported

if TYPE_CHECKING:
    from typing_extensions import TypeIs

Number = int | float | bool


class DType:
    """A tensor element type (``torch.float32`` …); ``typecode`` is its ``array`` type code."""

    def __init__(self, name: str, typecode: str, itemsize: int, kind: int) -> None:
        self.name = name
        self.typecode = typecode
        self.itemsize = itemsize
        self.kind = kind  # 0 bool, 1 integer, 2 floating point

    @property
    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type."""
        return self.kind == 2

    @property
    def is_signed(self) -> bool:
        """Whether the dtype can hold negative values."""
        return self.kind != 0

    def __repr__(self) -> str:
        return f"torch.{self.name}"


float32 = DType("float32", "f", 4, 2)
float64 = DType("float64", "d", 8, 2)
int64 = DType("int64", "q", 8, 1)
int32 = DType("int32", "i", 4, 1)
int8 = DType("int8", "b", 1, 1)
bool_ = DType("bool", "B", 1, 0)

#: every dtype by its name in TensorData
BY_NAME: dict[str, DType] = {d.name: d for d in (float32, float64, int64, int32, int8, bool_)}

#: the ``torch`` attribute names of the dtypes, aliases included
ATTRS: dict[str, DType] = {
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "int64": int64, "long": int64, "int32": int32, "int": int32, "int8": int8, "bool": bool_,
}

_INT_RANGE = {"q": (-(1 << 63), 1 << 63), "i": (-(1 << 31), 1 << 31), "b": (-128, 128)}


def is_number(x: object) -> TypeIs[int | float]:
    """Whether ``x`` is a Python number a tensor op accepts (bool, int or float)."""
    return isinstance(x, (int, float))


def check_dtype(dtype: object) -> DType:
    """``dtype`` itself if it is one of ours, else a clear error."""
    if isinstance(dtype, DType):
        return dtype
    raise Unsupported(f"dtype {dtype!r}")


def scalar_dtype(value: Number) -> DType:
    """The dtype torch gives a Python scalar."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float32
    raise TypeError(f"expected a number, got {type(value).__name__}")


def _wrap(value: int, typecode: str) -> int:
    lo, hi = _INT_RANGE[typecode]
    if lo <= value < hi:
        return value
    return (value - lo) % (hi - lo) + lo


def to_array(values: Sequence[Number], dtype: DType, src: DType | None = None) -> array[Any]:
    """``values`` stored as ``dtype`` (float32 is rounded, floats truncate toward zero to ints).

    ``src`` is the dtype the values come from, when known: it lets same-kind copies skip
    the per-element conversion. Integers wrap around on overflow, as in torch.
    """
    tc = dtype.typecode
    if dtype.kind == 2 or (src is not None and src.kind <= dtype.kind):
        try:
            return array(tc, values)
        except OverflowError:
            if dtype.kind == 2:
                raise
        except TypeError:
            pass
    if dtype.kind == 0:
        return array(tc, [1 if v else 0 for v in values])
    return array(tc, [_wrap(int(v), tc) for v in values])


def result_type(dims: list[DType], zero_dim: list[DType], scalars: list[Number]) -> DType:
    """torch's type promotion: dimensioned tensors first, then 0-d tensors, then scalars.

    A 0-d tensor or a scalar only changes the result when it is of a higher kind (bool <
    integer < floating point); a Python float then gives float32 and an int gives int64.
    """
    result: DType | None = None
    for group in (dims, zero_dim):
        best = _promote(group)
        if best is not None and (result is None or best.kind > result.kind):
            result = best
    for value in scalars:
        d = scalar_dtype(value)
        if result is None or d.kind > result.kind:
            result = d
    return result if result is not None else float32


_ORDER = {bool_: 0, int8: 1, int32: 2, int64: 3, float32: 4, float64: 5}


def _promote(dtypes: list[DType]) -> DType | None:
    if not dtypes:
        return None
    return max(dtypes, key=_ORDER.__getitem__)


def can_cast(src: DType, dst: DType) -> bool:
    """Whether an in-place op may write a ``src`` result into a ``dst`` tensor."""
    return src.kind <= dst.kind
