"""Selecting, reordering and scattering along a dimension (a mixin of ``Tensor``): ``flip``,
``roll``, ``index_select``, ``repeat_interleave``, ``gather``, ``scatter_add_``, ``index_add_``,
``bincount``, ``sort``, ``argsort`` and ``topk``.

Every op that builds a new tensor from whole slices goes through ``_take`` (the slices at a list
of positions along a dimension, copied); the element-wise ones through ``_dim_positions``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import product
from typing import TYPE_CHECKING, Any, Self

from . import layout
from .dtypes import DType, Number, float64, int64, to_array
from .layout import Shape
from .tensor_math import ValuesIndices, type_title

if TYPE_CHECKING:
    from .tensor import Tensor


class TensorIndex:
    """Ops that pick, reorder or scatter elements along a dimension; mixed into ``Tensor``."""

    __slots__ = ()

    if TYPE_CHECKING:  # provided by Tensor
        _store: array[Any]
        _dtype: DType
        _shape: Shape
        _strides: Shape
        _offset: int

        @classmethod
        def _wrap(cls, values: array[Any], dtype: DType, shape: Shape) -> Tensor: ...
        def _read(self) -> array[Any]: ...
        def _lane_map(self, dim: int, fn: Callable[[array[Any]], Iterable[Number]],
                      dtype: DType) -> Tensor: ...
        def dim(self) -> int: ...
        def numel(self) -> int: ...
        def select(self, dim: int, index: int) -> Tensor: ...
        def movedim(self, source: int, destination: int) -> Tensor: ...
        def narrow(self, dim: int, start: int, length: int) -> Tensor: ...
        def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor: ...
        def reshape(self, *shape: Any) -> Tensor: ...
        def contiguous(self) -> Tensor: ...
        def clone(self) -> Tensor: ...
        def add_(self, other: Tensor | Number, alpha: Number = 1) -> Tensor: ...
        def tolist(self) -> Any: ...

    # ---- whole slices along a dimension ----------------------------------------------------

    def _take(self, dim: int, positions: Sequence[int]) -> Tensor:
        """A new tensor of the slices at ``positions`` (valid, non-negative) along ``dim``."""
        if self.dim() == 0:
            return self.clone()
        src = self.movedim(dim, 0)
        values = array(self._store.typecode)
        for i in positions:
            values += src.select(0, i)._read()
        out = self._wrap(values, self._dtype, (len(positions),) + src._shape[1:])
        return out.movedim(0, dim).contiguous()

    def flip(self, *args: Any, dims: Any = None) -> Tensor:
        """A copy with the order of the elements along each of ``dims`` reversed."""
        out = self.clone()
        for d in _dims(args if dims is None else (dims,), self.dim()):
            out = out._take(d, range(self._shape[d] - 1, -1, -1) if self.dim() else [0])
        return out

    def roll(self, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
        """A copy with the elements shifted cyclically by ``shifts`` along ``dims`` (or flattened)."""
        shift_list = [shifts] if isinstance(shifts, int) else list(shifts)
        dim_list = [] if dims is None else [dims] if isinstance(dims, int) else list(dims)
        if dims is None and len(shift_list) == 1:
            return self.flatten().roll(shift_list[0], 0).reshape(self._shape)
        if len(shift_list) != len(dim_list):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_list)}, "
                               f"dims:{len(dim_list)}")
        out = self.clone()
        for shift, dim in zip(shift_list, dim_list, strict=True):
            d = layout.normalize_dim(dim, self.dim())
            n = self._shape[d] if self.dim() else 1
            out = out._take(d, [(i - shift) % n for i in range(n)])
        return out

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        """A copy of the slices along ``dim`` at the positions in the integer vector ``index``."""
        d = layout.normalize_dim(dim, self.dim())
        if index.dim() > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        positions = _index_values(index, "index_select()")
        size = self._shape[d] if self.dim() else 1
        if any(not 0 <= i < size for i in positions):
            raise IndexError("index out of range in self")
        return self._take(d, positions)

    def repeat_interleave(self, repeats: int | Tensor, dim: int | None = None, *,
                          output_size: int | None = None) -> Tensor:
        """Each slice along ``dim`` (or each element, flattened) repeated ``repeats`` times in place."""
        src = self.flatten() if dim is None else self
        d = 0 if dim is None else layout.normalize_dim(dim, self.dim())
        size = src._shape[d] if src.dim() else 1
        counts = [repeats] if isinstance(repeats, int) else _index_values(repeats, "repeat_interleave()")
        if len(counts) == 1:
            counts = counts * size
        if len(counts) != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{len(counts)} and input.size(0) = {size}"
            )
        if any(c < 0 for c in counts):
            raise RuntimeError("Repeats must be non-negative")
        out = src._take(d, [i for i, c in enumerate(counts) for _ in range(c)])
        if output_size is not None and out._shape[d] != output_size:
            raise RuntimeError("allocated size does not match required size")
        return out

    # ---- element by element along a dimension ----------------------------------------------

    def _dim_positions(self, dim: int, index: Tensor, name: str) -> list[int]:
        """The storage position in ``self`` of each element of ``index`` (row-major), for
        ``gather`` and ``scatter``: the element's coordinates, with ``dim`` replaced by its value."""
        d = layout.normalize_dim(dim, self.dim())
        if index.dim() != self.dim():
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        for k, (i, s) in enumerate(zip(index._shape, self._shape, strict=True)):
            if k != d and i > s:
                raise RuntimeError(
                    f"Size does not match at dimension {k} expected index {list(index._shape)} to "
                    f"be no larger than self {list(self._shape)} apart from dimension {d}"
                )
        size = self._shape[d] if self.dim() else 1
        stride = self._strides[d] if self.dim() else 0
        positions = []
        values = _index_values(index, name)
        for coords, i in zip(product(*map(range, index._shape)), values, strict=True):
            if not 0 <= i < size:
                raise RuntimeError(f"index {i} is out of bounds for dimension {d} with size {size}")
            base = sum(c * s for k, (c, s) in enumerate(zip(coords, self._strides, strict=True)) if k != d)
            positions.append(self._offset + base + i * stride)
        return positions

    def gather(self, dim: int, index: Tensor) -> Tensor:
        """``out[i][j] = self[index[i][j]][j]`` (for ``dim=0``; likewise for other dims)."""
        positions = self._dim_positions(dim, index, "gather()")
        st = self._store
        return self._wrap(array(st.typecode, [st[p] for p in positions]), self._dtype, index._shape)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Self:
        """In place: ``self[index[i][j]][j] += src[i][j]`` (for ``dim=0``; likewise for other dims)."""
        if src._dtype is not self._dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        positions = self._dim_positions(dim, index, "scatter_add_()")
        corner = src[tuple(slice(0, n) for n in index._shape)] if src.dim() else src
        st = self._store
        for p, v in zip(positions, corner._read(), strict=True):
            st[p] = _wrapped_add(st[p], v, self._dtype)
        return self

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        """``scatter_add_`` on a copy."""
        return self.clone().scatter_add_(dim, index, src)

    def index_add_(self, dim: int, index: Tensor, source: Tensor, *, alpha: Number = 1) -> Self:
        """In place: slice ``index[i]`` along ``dim`` += ``alpha`` × slice ``i`` of ``source``."""
        d = layout.normalize_dim(dim, self.dim())
        positions = _index_values(index, "index_add_()")
        wanted = source._shape[d] if source.dim() else 1
        if index.dim() > 1 or len(positions) != wanted:
            raise RuntimeError(f"index_add_(): Number of indices ({len(positions)}) should be equal "
                               f"to source.size(dim): ({wanted}), for dim: {dim}")
        if source._dtype is not self._dtype:
            raise RuntimeError(
                f"index_add_(): self ({type_title(self._dtype)}) and source ({type_title(source._dtype)}) "
                "must have the same scalar type"
            )
        if source.dim() != self.dim() or any(
            a != b for k, (a, b) in enumerate(zip(source._shape, self._shape, strict=True)) if k != d
        ):
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = {list(self._shape)} source.shape = "
                f"{list(source._shape)}"
            )
        size = self._shape[d] if self.dim() else 1
        for i, j in enumerate(positions):
            if not 0 <= j < size:
                raise RuntimeError(f"index {j} is out of bounds for dimension {d} with size {size}")
            target = self.select(d, j) if self.dim() else self
            target.add_(source.select(d, i) if source.dim() else source, alpha=alpha)
        return self

    def index_add(self, dim: int, index: Tensor, source: Tensor, *, alpha: Number = 1) -> Tensor:
        """``index_add_`` on a copy."""
        return self.clone().index_add_(dim, index, source, alpha=alpha)

    def bincount(self, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
        """How often each value ``0 … max`` occurs in this vector of non-negative integers (or the
        sum of their ``weights``), at least ``minlength`` counts."""
        if self._dtype.kind != 1:
            raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{type_title(self._dtype)}'")
        values = self.tolist()
        if self.dim() != 1 or any(v < 0 for v in values):
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if minlength < 0:
            raise RuntimeError("minlength should be >= 0")
        if weights is not None and (weights.dim() != 1 or weights.numel() != len(values)):
            raise RuntimeError("weights should be 1-d and have the same length as input")
        n = max(max(values, default=-1) + 1, minlength)
        counts: list[Number] = [0] * n
        ws = [1] * len(values) if weights is None else weights.tolist()
        for v, w in zip(values, ws, strict=True):
            counts[v] += w
        dtype = int64 if weights is None or not values else (
            weights._dtype if weights._dtype.kind == 2 else float64)
        return self._wrap(to_array(counts, dtype), dtype, (n,))

    # ---- ordering --------------------------------------------------------------------------

    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> ValuesIndices:
        """``(values, indices)``: each lane along ``dim`` sorted (stably; NaN as the largest)."""
        indices = self.argsort(dim, descending)
        return ValuesIndices(self.gather(dim, indices), indices)

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        """The indices that sort each lane along ``dim`` (see ``sort``)."""
        return self._lane_map(dim, lambda lane: _order(lane, descending), int64)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> ValuesIndices:
        """``(values, indices)`` of the ``k`` largest (or smallest) elements along ``dim``."""
        d = layout.normalize_dim(dim, self.dim())
        if not 0 <= k <= (self._shape[d] if self.dim() else 1):
            raise RuntimeError("selected index k out of range")
        values, indices = self.sort(d, descending=largest)
        if not self.dim():
            return ValuesIndices(values, indices)
        return ValuesIndices(values.narrow(d, 0, k).contiguous(), indices.narrow(d, 0, k).contiguous())


def _dims(dims: tuple[Any, ...], ndim: int) -> list[int]:
    """``flip``'s dims, from ``flip(0, 1)`` or ``flip((0, 1))``, normalized and checked."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    out = [layout.normalize_dim(d, ndim) for d in dims]
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def _index_values(index: Any, name: str) -> list[int]:
    """The elements of an integer index tensor, flattened."""
    from .tensor import Tensor

    if not isinstance(index, Tensor):
        raise TypeError(f"{name}: argument 'index' must be Tensor, not {type(index).__name__}")
    if index._dtype.kind != 1:
        raise RuntimeError(f"{name}: Expected dtype int32 or int64 for index")
    return index._read().tolist()


def _order(lane: array[Any], descending: bool) -> list[int]:
    """The stable sorting permutation of ``lane``; NaN sorts as the largest value."""
    return sorted(range(len(lane)), key=lambda i: (lane[i] != lane[i], lane[i]), reverse=descending)


def _wrapped_add(a: Number, b: Number, dtype: DType) -> Number:
    """``a + b`` as ``dtype`` stores it (integers wrap around)."""
    return to_array([a + b], dtype)[0] if dtype.kind < 2 else a + b
