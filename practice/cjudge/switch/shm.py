"""A rank's shared-memory segment with the judge: payloads cross it instead of the channel.

The judge makes one segment per rank (:func:`create`: a memfd sealed at its size, so that neither
side can shrink or grow it) and hands it to the rank with its answer to ``hello``. The segment is
two areas of ``area`` bytes. In the first the rank writes a request's payload (:meth:`Segment.place`)
and its frame names it, ``"shm": [offset, size]``; the judge copies it out when it handles the
request (:meth:`Mapped.take`): from then on the bytes are the switch's, whatever the rank
writes there later (copy on send). In the second the judge writes a reply's payload
(:meth:`Mapped.give`) and the rank copies it out when it reads the reply. The judge maps each
segment too (:class:`Mapped`): its copies are memory copies, no system call (a kernel copy between
two memfds, ``copy_file_range``, takes ~5 times as long: ``benchmarks/shm_copy.py``). The seals
keep the segment's size, so nothing a rank does to it can fault the judge; a rank that writes
while the judge copies changes only the bytes it sends, as it could have before sending them.

A send that meets a posted receive skips the judge's own copy: as it handles the post, the judge
copies the payload from the sender's area straight into the receiver's (:meth:`Mapped.hand`),
where it waits for the reply that completes the receive to name it; the sender's later writes
change nothing there either. The judge places what it writes in a rank's area beside
what the rank may still read there (:func:`room`).

A rank reuses its area once a reply arrives: the judge handles a rank's frames in order, so every
frame sent before the request answered has been copied out by then; and a reply's payload is the
rank's to read until its next request. A payload that does not fit travels in its frame, as it
did without a segment.
"""

from __future__ import annotations

import fcntl
import mmap
import os
from collections.abc import Iterable, Sequence
from typing import Any

#: a request's or reply's field naming its payload's place in the segment: [offset, size]
FIELD = "shm"
#: each area's size: at least this, the case's input bytes a rank if more, at most ``MAX_AREA``
MIN_AREA = 8 << 20
MAX_AREA = 64 << 20
#: where a placed payload starts: a multiple of this (a cache line)
ALIGN = 64
_SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL


def area_for(input_bytes: int) -> int:
    """Each area's size in a case whose ranks hold ``input_bytes`` of input each."""
    return min(max(MIN_AREA, input_bytes), MAX_AREA)


def create(area: int) -> Mapped | None:
    """A sealed segment of two areas of ``area`` bytes, mapped (the judge's side), or None where
    the system makes or maps none (the channel then carries every payload)."""
    try:
        fd = os.memfd_create("cjudge-channel", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except OSError:
        return None
    try:
        os.ftruncate(fd, 2 * area)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
        return Mapped(fd, area)
    except OSError:
        os.close(fd)
        return None


def span(at: Any, area: int) -> tuple[int, int]:
    """``at`` checked to be ``[offset, size]`` of a non-empty range inside an area."""
    if not isinstance(at, list) or len(at) != 2 or not all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in at) \
            or not 0 < at[1] <= area - at[0]:
        raise ValueError(f"a payload's place {str(at)[:40]} is not inside the shared area")
    return at[0], at[1]


def room(used: Iterable[tuple[int, int]], size: int, area: int) -> int | None:
    """Where ``size`` bytes fit in the judge's area of a segment beside the ranges ``used``
    (``(offset, size)`` each): the lowest such offset (aligned), or None if nowhere."""
    at = 0
    for start, length in sorted(used):
        if at + size <= start:
            break
        at = max(at, -(-(start + length) // ALIGN) * ALIGN)
    return at if at + size <= area else None


class Mapped:
    """The judge's side of a segment made by :func:`create` (its descriptor, for the rank, and
    its mapping): a place in the rank's area is a :func:`span`, one in the judge's an offset."""

    def __init__(self, fd: int, area: int) -> None:
        self.fd, self.area = fd, area
        self._memory = mmap.mmap(fd, 2 * area)
        self._view = memoryview(self._memory)

    def take(self, at: tuple[int, int]) -> bytes:
        """A request's payload copied out of the rank's area."""
        offset, size = at
        return bytes(self._view[offset:offset + size])

    def hand(self, at: tuple[int, int], to: Mapped, offset: int) -> None:
        """Copy a request's payload from this rank's area into the judge's area of ``to``
        (another rank's segment) at ``offset``: one copy."""
        start, size = at
        to._view[to.area + offset:to.area + offset + size] = self._view[start:start + size]

    def give(self, payload: bytes, offset: int) -> list[int] | None:
        """Write a reply's payload into the judge's area at ``offset``; its place, or None if it
        does not fit (it then travels in the reply's frame)."""
        size = len(payload)
        if not 0 < size <= self.area - offset:
            return None
        self._view[self.area + offset:self.area + offset + size] = payload
        return [offset, size]

    def close(self) -> None:
        """Unmap the segment and close its descriptor."""
        self._view.release()
        self._memory.close()
        os.close(self.fd)


class Segment:
    """The rank's side of its segment, mapped (before the rank is confined: a confined rank
    maps nothing shared)."""

    def __init__(self, fd: int, area: int) -> None:
        self.area = area
        self._memory = mmap.mmap(fd, 2 * area)
        self._view = memoryview(self._memory)
        self._used = 0

    def place(self, parts: Sequence[Any]) -> list[int] | None:
        """Copy a payload (``parts`` one after another) into the rank's area; its place, or
        None if it is empty or does not fit in what is left until the next reply."""
        views = [memoryview(p).cast("B") for p in parts]
        size = sum(v.nbytes for v in views)
        start = -(-self._used // ALIGN) * ALIGN
        if not size or start + size > self.area:
            return None
        at = start
        for v in views:
            self._view[at:at + v.nbytes] = v
            at += v.nbytes
        self._used = at
        return [start, size]

    def reply(self, at: Any) -> memoryview:
        """A reply's payload where it lies in the judge's area, uncopied: valid until the rank's
        next request (the judge then reuses the area); :class:`ValueError` if ``at`` is no
        place in it."""
        offset, size = span(at, self.area)
        return self._view[self.area + offset:self.area + offset + size]

    def replied(self) -> None:
        """A reply arrived: the judge has copied out every payload placed so far."""
        self._used = 0
