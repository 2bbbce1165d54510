"""Shapes and strides: where a strided view's elements lie in its storage.

A tensor's elements, in row-major order, are ``store[s : s + n*step : step]`` for each ``s``
in a list of starts (a :class:`Plan`): dimensions that are contiguous with each other are merged
first, so most views read and write with one or a few slices of the storage array, at C speed.
"""

from __future__ import annotations

from typing import NamedTuple

Shape = tuple[int, ...]


class Plan(NamedTuple):
    """The storage slices covering a view: one run of ``length`` elements ``step`` apart per start."""

    starts: list[int]
    length: int
    step: int


def numel(shape: Shape) -> int:
    """The number of elements of a shape."""
    n = 1
    for size in shape:
        n *= size
    return n


def contiguous_strides(shape: Shape) -> Shape:
    """Row-major strides for ``shape``."""
    strides = [1] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = acc
        acc *= max(shape[i], 1)
    return tuple(strides)


def is_contiguous(shape: Shape, strides: Shape) -> bool:
    """Whether the strides are row-major (size-1 dimensions may have any stride, as in torch)."""
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size == 0:
            return True
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def plan(shape: Shape, strides: Shape, offset: int) -> Plan:
    """The storage slices that hold a view's elements in row-major order."""
    if any(size == 0 for size in shape):
        return Plan([], 0, 1)
    merged: list[list[int]] = []  # innermost first: [size, stride]
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size == 1:
            continue
        if merged and merged[-1][0] * merged[-1][1] == stride:
            merged[-1][0] *= size
        else:
            merged.append([size, stride])
    if not merged:
        return Plan([offset], 1, 1)
    length, step = merged[0]
    starts = [offset]
    for size, stride in reversed(merged[1:]):
        starts = [s + i * stride for s in starts for i in range(size)]
    return Plan(starts, length, step)


def infer_shape(shape: Shape, total: int) -> Shape:
    """``shape`` with a ``-1`` replaced to hold ``total`` elements, checked like torch does."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = numel(tuple(s for s in shape if s != -1))
    if -1 in shape:
        if known == 0 or total % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {total}")
        shape = tuple(total // known if s == -1 else s for s in shape)
    if numel(shape) != total or any(s < 0 for s in shape):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {total}")
    return shape


def view_strides(shape: Shape, strides: Shape, new_shape: Shape) -> Shape | None:
    """Strides for viewing ``shape``/``strides`` as ``new_shape`` without a copy, or None.

    The algorithm of ATen's ``computeStride``: each run of old dimensions that are contiguous
    with each other can be split into new dimensions of the same total size.
    """
    if not shape or numel(shape) == 0:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1] if strides else 1
    tensor_numel = 1
    view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def broadcast_shapes(*shapes: Shape) -> Shape:
    """The shape that ``shapes`` broadcast to, or the error torch gives."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape, ndim - len(shape)):
            if size != 1:
                if out[i] not in (1, size):
                    raise RuntimeError(
                        f"The size of tensor a ({out[i]}) must match the size of tensor b "
                        f"({size}) at non-singleton dimension {i}"
                    )
                out[i] = size
    return tuple(out)


def normalize_dim(dim: int, ndim: int) -> int:
    """``dim`` in ``range(ndim)`` (negative dims count from the end), or IndexError."""
    top = max(ndim, 1)
    if not -top <= dim < top:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], "
            f"but got {dim})"
        )
    return dim + top if dim < 0 else dim
