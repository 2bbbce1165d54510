"""Values whose tensors travel as raw bytes: a small JSON skeleton, and one buffer beside it.

:func:`pack` puts each tensor's elements (a list of numbers, or the tensor's bytes already) into
the buffer, one tensor after another, in the machine's (little-endian) order, and leaves in the
skeleton ``{"shape", "dtype", "at": [offset, nbytes]}`` instead of ``"data"``; :func:`unpack`
gives the elements back as lists. Only the skeleton is JSON: a rank's input and result cross
the rank's channel and the simulated runtime's pipe this way, at memory speed.

On a stream (a sandbox runner's result channel) one value is one frame, :func:`framed`: the
line ``b"<skeleton bytes> <buffer bytes>\n"``, the skeleton (ASCII JSON), then the buffer;
:func:`read_frame` reads one from a blocking stream, :func:`split_frame` from bytes.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from collections.abc import Callable
from typing import Any, BinaryIO, TypeGuard

from .reduce import DTYPES

#: how deep a skeleton may nest (a tuple is two levels: its dict and its list)
MAX_NESTING = 64
#: each tensor's bytes start at a multiple of this (a tensor made over them is aligned)
ALIGN = 8
Raw = bytes | bytearray | memoryview
#: a frame's first line: its skeleton's and its buffer's lengths in bytes (:func:`framed`)
FRAME_HEAD = re.compile(rb"(0|[1-9][0-9]{0,14}) (0|[1-9][0-9]{0,14})\n")
#: the longest first line a frame may have
FRAME_HEAD_MAX = 32


def is_packed(value: Any) -> bool:
    """Whether ``value`` is a tensor of a skeleton (its elements in the buffer)."""
    return isinstance(value, dict) and "shape" in value and "at" in value


def raw_bytes(data: Any, dtype: str) -> Raw:
    """A tensor's elements as bytes: ``data`` itself if it is bytes, else packed by ``dtype``."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return data
    return array(DTYPES[dtype][0], data).tobytes()


def pack(value: Any) -> tuple[Any, list[Raw]]:
    """The skeleton of ``value`` and the tensors' bytes, in the order of their offsets (a
    tensor of a dtype the judge lacks, or whose elements its dtype cannot hold, stays as it is)."""
    parts: list[Raw] = []
    offset = 0

    def walk(v: Any) -> Any:
        nonlocal offset
        if isinstance(v, list):
            return [walk(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "shape" in v and "data" in v and v.get("dtype") in DTYPES:
            try:
                raw = raw_bytes(v["data"], v["dtype"])
            except (TypeError, OverflowError):  # not numbers of its dtype: left as they are
                return v
            if offset % ALIGN:
                parts.append(bytes(ALIGN - offset % ALIGN))
                offset += ALIGN - offset % ALIGN
            size = raw.nbytes if isinstance(raw, memoryview) else len(raw)
            out = {k: x for k, x in v.items() if k != "data"}
            out["at"] = [offset, size]
            parts.append(raw)
            offset += size
            return out
        return {k: walk(x) for k, x in v.items()}

    return walk(value), parts


def framed(value: Any) -> list[Raw]:
    """``value`` as one frame on a stream: its lengths' line, its skeleton, its buffer's parts."""
    skeleton, parts = pack(value)
    head = json.dumps(skeleton).encode()
    size = sum(memoryview(p).nbytes for p in parts)
    return [b"%d %d\n" % (len(head), size), head, *parts]


def frame_lengths(line: bytes) -> tuple[int, int]:
    """The skeleton's and the buffer's lengths a frame's first ``line`` (newline included)
    says; :class:`ValueError` if it is no such line."""
    found = FRAME_HEAD.fullmatch(line)
    if found is None:
        raise ValueError(f"not a frame's first line: {line[:FRAME_HEAD_MAX]!r}")
    return int(found[1]), int(found[2])


def read_frame(stream: BinaryIO) -> tuple[bytes, memoryview] | None:
    """The next frame of a blocking ``stream``: its skeleton and its buffer; None at the
    stream's end; :class:`ValueError` for bytes that are no frame or a frame cut short."""
    line = stream.readline(FRAME_HEAD_MAX)
    if not line:
        return None
    skeleton, size = frame_lengths(line)
    data = stream.read(skeleton + size)  # a buffered stream reads it all, unless it ends
    if len(data) != skeleton + size:
        raise ValueError(f"a frame cut short after {len(data)} of {skeleton + size} bytes")
    return data[:skeleton], memoryview(data)[skeleton:]


def split_frame(data: Raw) -> tuple[bytes, memoryview]:
    """The skeleton and the buffer of the one whole frame ``data`` holds; :class:`ValueError`
    if it holds anything else."""
    whole = memoryview(data).cast("B")
    newline = bytes(whole[:FRAME_HEAD_MAX]).find(b"\n") + 1
    skeleton, size = frame_lengths(bytes(whole[:newline]))
    if newline + skeleton + size != whole.nbytes:
        raise ValueError(f"a frame of {newline + skeleton + size} bytes in {whole.nbytes}")
    return bytes(whole[newline:newline + skeleton]), whole[newline + skeleton:]


def as_view(view: memoryview, dtype: str) -> memoryview:
    """A tensor's elements as they lie in the buffer (no copy): what a value that is packed
    again (a frame passed on) keeps."""
    return view


def as_list(view: memoryview, dtype: str) -> list[Any]:
    """A tensor's elements as a list of numbers (booleans for ``bool``), as JSON carried them."""
    return [bool(x) for x in view.tolist()] if dtype == "bool" else view.tolist()


#: what a packed tensor's elements become: (a view of its type over them, dtype) -> its data
Elements = Callable[[memoryview, str], Any]


def unpack(value: Any, payload: Raw, elements: Elements = as_list, depth: int = 0) -> Any:
    """``value`` with each packed tensor's ``data`` made of its bytes in ``payload`` by
    ``elements``; :class:`ValueError` on a tensor that does not fit (the skeleton may come
    from a rank)."""
    if depth > MAX_NESTING:
        raise ValueError("a value nested too deep")
    if isinstance(value, list):
        return [unpack(x, payload, elements, depth + 1) for x in value]
    if not isinstance(value, dict):
        return value
    if is_packed(value):
        out = {"shape": value["shape"], "dtype": value["dtype"],
               "data": elements(_view(value, payload), value["dtype"])}
        out.update((k, v) for k, v in value.items() if k not in ("shape", "dtype", "at"))
        return out
    return {k: unpack(x, payload, elements, depth + 1) for k, x in value.items()}


def _view(t: dict[str, Any], payload: Raw) -> memoryview:
    """The elements of the packed tensor ``t``, checked to lie in ``payload``."""
    dtype, shape, at = t.get("dtype"), t.get("shape"), t.get("at")
    if dtype not in DTYPES or not _ints(shape) or not _ints(at) or len(at) != 2:
        raise ValueError("a malformed packed tensor")
    start, size = at
    whole = memoryview(payload).cast("B")
    if start + size > whole.nbytes or size != math.prod(shape) * DTYPES[dtype][1]:
        raise ValueError("a packed tensor outside its buffer")
    code: Any = DTYPES[dtype][0]  # one of ``array``'s type codes, which a memoryview takes
    return whole[start:start + size].cast(code)


def _ints(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value)
