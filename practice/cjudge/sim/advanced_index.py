"""Advanced indexing (``t[index_tensor]``, ``t[mask]``, ``t[rows, cols]``, ``t[:, idx]``):
where the selected elements lie in the storage, for ``Tensor.__getitem__`` and ``__setitem__``.

Supported: one block of adjacent integer tensors, integer lists or boolean masks (a mask of k
dimensions counts as k index vectors, its true coordinates), broadcast together, with slices
before the block and any basic items (ints, slices, None, ...) after it. As in torch, the block's
dimensions replace the indexed ones where the block stands.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING, Any, NamedTuple

from . import layout
from .dtypes import bool_, int64
from .errors import Unsupported
from .layout import Shape

if TYPE_CHECKING:
    from .tensor import Tensor


class Selection(NamedTuple):
    """The storage positions of the selected elements, in row-major order of ``shape``; the
    result is a tensor of ``shape`` permuted by ``perm`` (None when no permutation is needed)."""

    positions: list[int]
    shape: Shape
    perm: list[int] | None


def is_advanced(item: Any) -> bool:
    """Whether an index item is a tensor (not an integer scalar) or a list."""
    from .tensor import Tensor

    return isinstance(item, list) or isinstance(item, Tensor) and not (
        item.dim() == 0 and item.dtype.kind == 1)


def select(t: Tensor, key: Any) -> Selection:
    """Where the elements ``t[key]`` lie, for a key with advanced items (see the module)."""
    items = list(key) if isinstance(key, tuple) else [key]
    first = next(i for i, k in enumerate(items) if is_advanced(k))
    end = first
    while end < len(items) and is_advanced(items[end]):
        end += 1
    if any(is_advanced(k) for k in items[end:]) or any(
            not isinstance(k, slice) for k in items[:first]):
        raise Unsupported("this kind of advanced indexing (use one block of index tensors, "
                          "after slices only)")
    vectors = [v for k in items[first:end] for v in _index_vectors(t, k, first)]
    view = t._basic_index(tuple(items[:first]) + (slice(None),) * len(vectors)
                          + tuple(items[end:]))
    assert view is not None
    block = range(first, first + len(vectors))
    others = [d for d in range(view.dim()) if d not in block]
    shape = layout.broadcast_shapes(*(v.shape for v in vectors))
    flat = [v.expand(shape)._read().tolist() for v in vectors]
    rest = (tuple(view._shape[d] for d in others), tuple(view._strides[d] for d in others))
    positions: list[int] = []
    for coords in zip(*flat, strict=True):
        offset = view._offset
        for d, i in zip(block, coords, strict=True):
            size = view._shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            offset += (i % size) * view._strides[d]
        positions += view._derive(rest[0], rest[1], offset)._positions()
    b = len(shape)
    perm = None
    if first and b:
        perm = list(range(b, b + first)) + list(range(b)) + list(range(b + first, b + len(others)))
    return Selection(positions, shape + rest[0], perm)


def _index_vectors(t: Tensor, item: Any, dim: int) -> list[Tensor]:
    """The integer index tensors an item stands for: itself, or a mask's true coordinates."""
    from .factories import tensor
    from .tensor import Tensor

    index = item if isinstance(item, Tensor) else tensor(item, dtype=int64 if item == [] else None)
    if index.dtype is bool_:
        expected = t._shape[dim:dim + index.dim()]
        if index._shape != expected:
            raise IndexError(
                f"The shape of the mask {list(index._shape)} at index 0 does not match the shape "
                f"of the indexed tensor {list(expected)} at index {dim}"
            )
        true = [c for c, m in zip(product(*map(range, index._shape)), index._read(), strict=True)
                if m]
        return [tensor([c[k] for c in true], dtype=int64) for k in range(index.dim())]
    if index.dtype.kind != 1:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return [index]
