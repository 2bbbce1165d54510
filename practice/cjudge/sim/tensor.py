"""The simulated ``torch.Tensor``: a strided view (shape, strides, offset) of a shared storage.

The storage is an ``array.array`` of the dtype's type code, so float32 values are rounded to
float32 on every write, and views (``chunk``, ``split``, slicing, ``t()`` …) share it: an in-place
op on a view changes its base, as in torch.
"""

from __future__ import annotations

import builtins
import operator
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, cast

from ..rank.cuda_note import is_cuda
from . import advanced_index, cuda, layout
from .dtypes import (
    DType,
    Number,
    bool_,
    check_dtype,
    float32,
    float64,
    int8,
    int32,
    int64,
    is_number,
    to_array,
)
from .errors import Unsupported, UnsupportedAttribute
from .layout import Shape
from .tensor_index import TensorIndex
from .tensor_math import TensorMath


class Size(tuple[int, ...]):
    """``torch.Size``: a tuple of ints with ``numel()``."""

    def numel(self) -> int:
        """The number of elements of a tensor of this size."""
        return layout.numel(self)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"


class Device:
    """``torch.device``: only the CPU exists here."""

    def __init__(self, kind: str | Device = "cpu", index: int | None = None) -> None:
        name = str(kind)
        if name.split(":")[0] != "cpu":
            raise Unsupported(f"device {name!r} (only 'cpu')")
        self.type = "cpu"
        self.index = index

    def __eq__(self, other: object) -> bool:
        return str(other) == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")

    def __str__(self) -> str:
        return "cpu"

    def __repr__(self) -> str:
        return "device(type='cpu')"


CPU = Device()


def _shape_arg(size: Sequence[Any]) -> Shape:
    """A shape from ``f(2, 3)`` or ``f((2, 3))`` style arguments."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        return tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be a sequence of ints, got {size!r}") from None


class Tensor(TensorIndex, TensorMath):
    """A strided view of a storage array; see the module docstring."""

    __slots__ = ("_store", "_dtype", "_shape", "_strides", "_offset", "_plan")

    _store: array[Any]
    _dtype: DType
    _shape: Shape
    _strides: Shape
    _offset: int
    _plan: layout.Plan | None

    def __new__(cls, *args: Any) -> Tensor:
        """The legacy constructor: ``torch.Tensor([1, 2])`` (float32 data) or ``torch.Tensor(2, 3)``."""
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            from .factories import tensor

            return tensor(args[0], dtype=float32)
        shape = _shape_arg(args) if args else (0,)
        return cls._view(array("f", [0.0]) * layout.numel(shape), float32, shape)

    def __init__(self, *args: Any) -> None:
        """Everything is done by ``__new__``."""

    # ---- construction ----------------------------------------------------------------------

    @classmethod
    def _view(cls, store: array[Any], dtype: DType, shape: Shape, strides: Shape | None = None,
              offset: int = 0) -> Tensor:
        t = object.__new__(cls)
        t._store = store
        t._dtype = dtype
        t._shape = shape
        t._strides = strides if strides is not None else layout.contiguous_strides(shape)
        t._offset = offset
        t._plan = None
        return t

    @classmethod
    def _wrap(cls, values: array[Any], dtype: DType, shape: Shape) -> Tensor:
        """A new contiguous tensor owning ``values`` (already of ``dtype``'s type code)."""
        return cls._view(values, dtype, shape)

    def _derive(self, shape: Shape, strides: Shape, offset: int) -> Tensor:
        return Tensor._view(self._store, self._dtype, shape, strides, offset)

    # ---- reading and writing the storage ---------------------------------------------------

    def _layout(self) -> layout.Plan:
        if self._plan is None:
            self._plan = layout.plan(self._shape, self._strides, self._offset)
        return self._plan

    def _read(self) -> array[Any]:
        """The elements in row-major order, as a new array."""
        starts, n, step = self._layout()
        st = self._store
        if len(starts) == 1:
            s = starts[0]
            if step == 1:
                return st[s:s + n]
            if step == 0:
                return array(st.typecode, [st[s]]) * n
            return st[s:s + (n - 1) * step + 1:step]
        out = array(st.typecode)
        for s in starts:
            if step == 0:
                out += array(st.typecode, [st[s]]) * n
            else:
                out += st[s:s + (n - 1) * step + 1:step]
        return out

    def _write(self, values: array[Any]) -> None:
        """Store ``values`` (row-major, this tensor's type code) into this view."""
        starts, n, step = self._layout()
        if step == 0 and n > 1 or len(set(starts)) != len(starts):
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation."
            )
        st = self._store
        one = len(starts) == 1
        for k, s in enumerate(starts):
            chunk = values if one else values[k * n:(k + 1) * n]
            if step == 1:
                st[s:s + n] = chunk
            else:
                st[s:s + (n - 1) * step + 1:step] = chunk

    def _positions(self) -> list[int]:
        """The storage index of every element, in row-major order."""
        starts, n, step = self._layout()
        return [s + j * step for s in starts for j in range(n)]

    def _values_as(self, dtype: DType, shape: Shape) -> array[Any]:
        """The elements broadcast to ``shape`` and converted to ``dtype``."""
        src = self if self._shape == shape else self.expand(shape)
        values = src._read()
        if dtype is not self._dtype:
            values = to_array(values, dtype, self._dtype)
        return values

    # ---- metadata --------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of one dimension."""
        if dim is None:
            return Size(self._shape)
        return self._shape[layout.normalize_dim(dim, self.dim())]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        """The strides, or the stride of one dimension."""
        if dim is None:
            return self._strides
        return self._strides[layout.normalize_dim(dim, self.dim())]

    def storage_offset(self) -> int:
        """Where this view starts in its storage."""
        return self._offset

    @property
    def dtype(self) -> DType:
        """The element type."""
        return self._dtype

    @property
    def device(self) -> Device:
        """Always the CPU."""
        return CPU

    @property
    def is_cuda(self) -> bool:
        """Always False."""
        return False

    @property
    def requires_grad(self) -> bool:
        """Always False: there is no autograd here."""
        return False

    @property
    def grad(self) -> None:
        """Always None: there is no autograd here."""
        return None

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    def dim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        """The number of elements."""
        return layout.numel(self._shape)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of all elements."""
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self) -> bool:
        """Whether the view is row-major without gaps."""
        return layout.is_contiguous(self._shape, self._strides)

    def is_floating_point(self) -> bool:
        """Whether the dtype is float32 or float64."""
        return self._dtype.is_floating_point

    def data_ptr(self) -> int:
        """An address-like number: equal for views that start at the same element."""
        return id(self._store) * 16 + self._offset * self._dtype.itemsize

    # ---- views -----------------------------------------------------------------------------

    def view(self, *shape: Any) -> Tensor:
        """The same storage seen with another shape (no copy)."""
        if len(shape) == 1 and isinstance(shape[0], DType):
            raise Unsupported("Tensor.view(dtype)")
        new_shape = layout.infer_shape(_shape_arg(shape), self.numel())
        strides = layout.view_strides(self._shape, self._strides, new_shape)
        if strides is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        return self._derive(new_shape, strides, self._offset)

    def view_as(self, other: Tensor) -> Tensor:
        """``view(other.shape)``."""
        return self.view(other._shape)

    def reshape(self, *shape: Any) -> Tensor:
        """A view when possible, else a copy, with another shape."""
        new_shape = layout.infer_shape(_shape_arg(shape), self.numel())
        strides = layout.view_strides(self._shape, self._strides, new_shape)
        if strides is None:
            return self.contiguous().view(new_shape)
        return self._derive(new_shape, strides, self._offset)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``."""
        return self.reshape(other._shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Dimensions ``start_dim..end_dim`` merged into one (a view when possible)."""
        if self.dim() == 0:
            return self.reshape(1)
        a = layout.normalize_dim(start_dim, self.dim())
        b = layout.normalize_dim(end_dim, self.dim())
        if a > b:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        shape = self._shape[:a] + (layout.numel(self._shape[a:b + 1]),) + self._shape[b + 1:]
        return self.reshape(shape)

    def ravel(self) -> Tensor:
        """``reshape(-1)``."""
        return self.reshape(-1)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """Elements ``start … start+length-1`` along ``dim`` (a view)."""
        d = layout.normalize_dim(dim, self.dim())
        size = self._shape[d]
        if start < 0:
            start += size
        if not (0 <= start <= size and 0 <= length <= size - start):
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
        shape = self._shape[:d] + (length,) + self._shape[d + 1:]
        return self._derive(shape, self._strides, self._offset + start * self._strides[d])

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Views of consecutive pieces along ``dim``: equal ``split_size`` or given sizes."""
        d = layout.normalize_dim(dim, self.dim())
        size = self._shape[d]
        if isinstance(split_size, int):
            if split_size <= 0 and size:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got {split_size}")
            sizes = [min(split_size, size - i) for i in range(0, size, split_size)] if size else [0]
        else:
            sizes = [int(s) for s in split_size]
            if sum(sizes) != size:
                raise RuntimeError(
                    f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                    f"size at dimension {dim}), but got split_sizes={sizes}"
                )
        out = []
        start = 0
        for length in sizes:
            out.append(self.narrow(d, start, length))
            start += length
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """At most ``chunks`` views of ⌈size/chunks⌉ elements along ``dim`` (the last may be smaller)."""
        if chunks <= 0:
            raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
        size = self._shape[layout.normalize_dim(dim, self.dim())]
        if not size:
            return self.split([0] * chunks, dim)
        return self.split(max((size + chunks - 1) // chunks, 1), dim)

    def tensor_split(self, sections: int, dim: int = 0) -> tuple[Tensor, ...]:
        """Exactly ``sections`` views along ``dim``, the first ``size % sections`` one longer."""
        size = self._shape[layout.normalize_dim(dim, self.dim())]
        q, r = divmod(size, sections)
        return self.split([q + 1] * r + [q] * (sections - r), dim)

    def select(self, dim: int, index: int) -> Tensor:
        """The slice at ``index`` along ``dim``, without that dimension (a view)."""
        d = layout.normalize_dim(dim, self.dim())
        size = self._shape[d]
        i = index + size if index < 0 else index
        if not 0 <= i < size:
            raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
        return self._derive(self._shape[:d] + self._shape[d + 1:],
                            self._strides[:d] + self._strides[d + 1:],
                            self._offset + i * self._strides[d])

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """Every slice along ``dim``."""
        d = layout.normalize_dim(dim, self.dim())
        return tuple(self.select(d, i) for i in range(self._shape[d]))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Dimensions ``dim0`` and ``dim1`` swapped (a view)."""
        a = layout.normalize_dim(dim0, self.dim())
        b = layout.normalize_dim(dim1, self.dim())
        shape, strides = list(self._shape), list(self._strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return self._derive(tuple(shape), tuple(strides), self._offset)

    swapaxes = transpose

    def t(self) -> Tensor:
        """The transpose of a matrix (a view); vectors are returned unchanged."""
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        return self if self.dim() < 2 else self.transpose(0, 1)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (a view)."""
        return self.permute(*range(self.dim() - 1, -1, -1))

    def permute(self, *dims: Any) -> Tensor:
        """Dimensions reordered (a view)."""
        order = [layout.normalize_dim(d, self.dim()) for d in _shape_arg(dims)]
        if len(order) != self.dim():
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the "
                "length of the desired ordering of dimensions i.e. input.dim() = "
                f"{self.dim()} is not equal to len(dims) = {len(order)}"
            )
        if len(set(order)) != len(order):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._derive(tuple(self._shape[d] for d in order),
                            tuple(self._strides[d] for d in order), self._offset)

    def movedim(self, source: int, destination: int) -> Tensor:
        """Dimension ``source`` moved to position ``destination`` (a view)."""
        order = list(range(self.dim()))
        s = order.pop(layout.normalize_dim(source, self.dim()))
        order.insert(layout.normalize_dim(destination, self.dim()), s)
        return self.permute(order)

    def unsqueeze(self, dim: int) -> Tensor:
        """A size-1 dimension inserted at ``dim`` (a view)."""
        d = layout.normalize_dim(dim, self.dim() + 1)
        stride = self._strides[d] * self._shape[d] if d < self.dim() else 1
        return self._derive(self._shape[:d] + (1,) + self._shape[d:],
                            self._strides[:d] + (stride,) + self._strides[d:], self._offset)

    def squeeze(self, dim: int | None = None) -> Tensor:
        """Size-1 dimensions removed (all, or only ``dim``) (a view)."""
        if dim is None:
            keep = [i for i, s in enumerate(self._shape) if s != 1]
        else:
            d = layout.normalize_dim(dim, self.dim())
            keep = [i for i in range(self.dim()) if i != d or self._shape[d] != 1]
        return self._derive(tuple(self._shape[i] for i in keep),
                            tuple(self._strides[i] for i in keep), self._offset)

    def expand(self, *sizes: Any) -> Tensor:
        """Size-1 dimensions repeated without copying (stride 0); -1 keeps a size."""
        shape = _shape_arg(sizes)
        if len(shape) < self.dim():
            raise RuntimeError("expand: the number of sizes provided must be at least the tensor's dims")
        lead = len(shape) - self.dim()
        new_shape: list[int] = []
        new_strides: list[int] = []
        for i, size in enumerate(shape):
            if i < lead:
                new_shape.append(size)
                new_strides.append(0)
                continue
            old, stride = self._shape[i - lead], self._strides[i - lead]
            if size == -1 or size == old:
                new_shape.append(old)
                new_strides.append(stride)
            elif old == 1:
                new_shape.append(size)
                new_strides.append(0)
            else:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) must match the existing size "
                    f"({old}) at non-singleton dimension {i}.  Target sizes: {list(shape)}.  "
                    f"Tensor sizes: {list(self._shape)}"
                )
        return self._derive(tuple(new_shape), tuple(new_strides), self._offset)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``."""
        return self.expand(other._shape)

    def detach(self) -> Tensor:
        """The same view (there is no autograd here)."""
        return self._derive(self._shape, self._strides, self._offset)

    @property
    def data(self) -> Tensor:
        """The same view (there is no autograd here)."""
        return self.detach()

    # ---- copies and conversions ------------------------------------------------------------

    def new_full(self, size: Any, fill_value: Number, dtype: DType | None = None) -> Tensor:
        """A new tensor of ``size`` filled with ``fill_value``, of this tensor's dtype by default."""
        dtype = check_dtype(dtype) if dtype is not None else self._dtype
        shape = _shape_arg((size,))
        return Tensor._wrap(to_array([fill_value], dtype) * layout.numel(shape), dtype, shape)

    def new_zeros(self, *size: Any, dtype: DType | None = None) -> Tensor:
        """A new tensor of zeros, of this tensor's dtype by default."""
        return self.new_full(_shape_arg(size), 0, dtype)

    new_empty = new_zeros

    def new_ones(self, *size: Any, dtype: DType | None = None) -> Tensor:
        """A new tensor of ones, of this tensor's dtype by default."""
        return self.new_full(_shape_arg(size), 1, dtype)

    def contiguous(self) -> Tensor:
        """Itself if row-major, else a row-major copy."""
        return self if self.is_contiguous() else self.clone()

    def clone(self) -> Tensor:
        """A copy with its own storage."""
        return Tensor._wrap(self._read(), self._dtype, self._shape)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """A copy converted to a dtype (devices other than the CPU are not available; CUDA is
        a no-op with a note, ``sim.cuda``)."""
        dtype = kwargs.get("dtype")
        for a in list(args) + [kwargs.get("device")]:
            if isinstance(a, DType):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a._dtype
            elif is_cuda(a):
                cuda.say('.to("cuda")')
            elif a is not None:
                Device(a)
        if dtype is None or dtype is self._dtype:
            return self
        return cast("Tensor", self.type(dtype))

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        """No GPU here: the tensor itself, with a note (``sim.cuda``)."""
        cuda.say(".cuda()")
        return self

    def type(self, dtype: DType | None = None) -> Any:
        """The dtype's name, or a copy converted to ``dtype``."""
        if dtype is None:
            return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                    "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int8": "torch.CharTensor",
                    "bool": "torch.BoolTensor"}[self._dtype.name]
        dtype = check_dtype(dtype)
        if dtype is self._dtype:
            return self
        return Tensor._wrap(to_array(self._read(), dtype, self._dtype), dtype, self._shape)

    def float(self) -> Tensor:
        """Converted to float32."""
        return cast("Tensor", self.type(float32))

    def double(self) -> Tensor:
        """Converted to float64."""
        return cast("Tensor", self.type(float64))

    def long(self) -> Tensor:
        """Converted to int64."""
        return cast("Tensor", self.type(int64))

    def int(self) -> Tensor:
        """Converted to int32."""
        return cast("Tensor", self.type(int32))

    def char(self) -> Tensor:
        """Converted to int8."""
        return cast("Tensor", self.type(int8))

    def bool(self) -> Tensor:
        """Converted to bool."""
        return cast("Tensor", self.type(bool_))

    def cpu(self) -> Tensor:
        """Itself: everything is on the CPU."""
        return self

    def tolist(self) -> Any:
        """The elements as (nested) Python lists; a 0-d tensor gives a number."""
        values = self._read()
        if self._dtype is bool_:
            flat: list[Any] = [bool(v) for v in values]
        else:
            flat = values.tolist()
        return flat[0] if not self._shape else _nest(flat, self._shape)

    def item(self) -> Number:
        """The only element as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        v = self._store[self._layout().starts[0]]
        return bool(v) if self._dtype is bool_ else v

    def __len__(self) -> builtins.int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> builtins.bool:
        if self.numel() != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no' if self.numel() == 0 else 'more than one'} "
                "values is ambiguous"
            )
        return bool(self.item())

    def __float__(self) -> builtins.float:
        return float(self.item())

    def __int__(self) -> builtins.int:
        return int(self.item())

    def __index__(self) -> builtins.int:
        if self._dtype.kind == 2 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if self.dim() == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self) -> str:
        from .formatting import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __hash__(self) -> builtins.int:
        return id(self)

    def __deepcopy__(self, memo: dict[builtins.int, Any]) -> Tensor:
        return self.clone()

    def __getattr__(self, name: str) -> Any:
        raise UnsupportedAttribute(f"Tensor.{name}")

    # ---- indexing --------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> Tensor:
        basic = self._basic_index(key)
        if basic is not None:
            return basic
        chosen = advanced_index.select(self, key)
        st = self._store
        out = Tensor._wrap(array(st.typecode, [st[p] for p in chosen.positions]), self._dtype,
                           chosen.shape)
        return out if chosen.perm is None else out.permute(chosen.perm).contiguous()

    def __setitem__(self, key: Any, value: Tensor | Number) -> None:
        basic = self._basic_index(key)
        if basic is not None:
            basic._assign(value)
            return
        chosen = advanced_index.select(self, key)
        if chosen.perm is None:
            values = _broadcast_values(value, self._dtype, chosen.shape)
        else:
            shape = tuple(chosen.shape[d] for d in chosen.perm)
            final = Tensor._wrap(_broadcast_values(value, self._dtype, shape), self._dtype, shape)
            values = final.permute([chosen.perm.index(d) for d in range(len(shape))])._read()
        st = self._store
        for p, v in zip(chosen.positions, values, strict=True):
            st[p] = v

    def _basic_index(self, key: Any) -> Tensor | None:
        """The view for ints, slices, None and Ellipsis, or None for advanced indexing."""
        items = key if isinstance(key, tuple) else (key,)
        items = tuple(
            int(k) if isinstance(k, Tensor) and k.dim() == 0 and k._dtype.kind == 1 else k
            for k in items
        )
        if any(advanced_index.is_advanced(k) for k in items):
            return None
        real = sum(1 for k in items if k is not None and k is not Ellipsis)
        if real > self.dim():
            raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
        if items.count(Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if Ellipsis in items:
            i = items.index(Ellipsis)
            items = items[:i] + (slice(None),) * (self.dim() - real) + items[i + 1:]
        else:
            items = items + (slice(None),) * (self.dim() - real)
        shape: list[int] = []
        strides: list[int] = []
        offset = self._offset
        d = 0
        for k in items:
            if k is None:
                shape.append(1)
                strides.append(1)
                continue
            size, stride = self._shape[d], self._strides[d]
            if isinstance(k, slice):
                start, stop, step = k.indices(size)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                shape.append(len(range(start, stop, step)))
                strides.append(stride * step)
                offset += start * stride if shape[-1] else 0
            elif isinstance(k, int) and not isinstance(k, bool):
                i = k + size if k < 0 else k
                if not 0 <= i < size:
                    raise IndexError(f"index {k} is out of bounds for dimension {d} with size {size}")
                offset += i * stride
            else:
                raise Unsupported(f"indexing a tensor with {type(k).__name__}")
            d += 1
        return self._derive(tuple(shape), tuple(strides), offset)

    def _assign(self, value: Tensor | Number) -> None:
        """Write ``value`` (broadcast, converted) into every element of this view."""
        self._write(_broadcast_values(value, self._dtype, self._shape))

    # ---- in-place ops ----------------------------------------------------------------------

    def copy_(self, src: Tensor | Number, non_blocking: builtins.bool = False) -> Tensor:
        """Copy ``src`` (broadcast, converted) into this tensor."""
        self._assign(src)
        return self

    def fill_(self, value: Number | Tensor) -> Tensor:
        """Set every element to ``value``."""
        if isinstance(value, Tensor):
            value = value.item()
        self._assign(value)
        return self

    def zero_(self) -> Tensor:
        """Set every element to 0."""
        return self.fill_(0)

def _nest(flat: list[Any], shape: Shape) -> list[Any]:
    """Row-major ``flat`` as nested lists of ``shape``."""
    if len(shape) == 1:
        return flat
    n = layout.numel(shape[1:])
    return [_nest(flat[i * n:(i + 1) * n], shape[1:]) for i in range(shape[0])]


def _broadcast_values(value: Tensor | Number, dtype: DType, shape: Shape) -> array[Any]:
    """``value`` broadcast to ``shape`` and converted to ``dtype``, as a flat array."""
    if isinstance(value, Tensor):
        if layout.broadcast_shapes(value._shape, shape) != shape:
            raise RuntimeError(
                f"The size of tensor a ({list(shape)}) must match the size of tensor b "
                f"({list(value._shape)})"
            )
        return value._values_as(dtype, shape)
    if isinstance(value, (list, tuple)):
        raise Unsupported("assigning a Python list to a tensor (use torch.tensor(...))")
    if not is_number(value):
        raise TypeError(f"can't assign a {type(value).__name__} to a tensor")
    return to_array([value], dtype) * layout.numel(shape)
