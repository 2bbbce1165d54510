"""Reading a sandbox runner's frames from a pipe or socket, with deadlines and a byte budget.

A frame (``cjudge.switch.packed.framed``) is a line with two lengths, a JSON object (the
skeleton), then the raw bytes of its tensors; the channel gives back the object with each
tensor's elements as a list, as JSON would have carried them. Nothing in a frame is trusted: one
that is malformed, claims more bytes than the budget has left, or holds a tensor outside its
bytes breaks the protocol (:class:`ChannelError`).
"""

from __future__ import annotations

import json
import logging
import os
import select
import time
from collections.abc import Callable
from typing import Any

from cjudge.contract.protocol import CaseSpec
from cjudge.contract.values import result_budget
from cjudge.switch import packed

logger = logging.getLogger(__name__)
_WARNED: set[tuple[str, ...]] = set()
#: bytes read at a time, at most
CHUNK = 1 << 20


class ChannelError(Exception):
    """The result channel broke its protocol: a malformed frame, too many bytes, or a timeout."""


class FrameChannel:
    """Frames from the read end ``fd`` of a pipe or socket, at most ``limit`` bytes in all: the
    ``allowance`` until the runner is given its job, then the job's budget (:meth:`expect`)."""

    def __init__(self, fd: int, allowance: int) -> None:
        self.fd = fd
        self.allowance = allowance
        self.limit = allowance
        self.total = 0  # bytes read so far
        self.buffer = bytearray()
        self.eof = False

    def expect(self, cases: list[CaseSpec]) -> None:
        """Budget a job of ``cases``: the allowance for their records and their results' room."""
        self.limit = result_budget(cases, self.allowance)

    def read(self, deadline: float) -> dict[str, Any] | None:
        """The next object; None at end of file (a frame cut short by it too: the runner was
        killed while it wrote); ``TimeoutError`` once ``deadline`` passes."""
        head = self._until(deadline, self._head_length)
        if head is None:
            return None
        try:
            skeleton, size = packed.frame_lengths(bytes(self.buffer[:head]))
        except ValueError as exc:
            raise ChannelError(f"result channel sent {exc}") from None
        whole = head + skeleton + size
        if self.total - len(self.buffer) + whole > self.limit:
            raise ChannelError(f"result channel announced a frame of {whole} bytes, past its "
                               f"budget of {self.limit} bytes")
        if self._until(deadline, lambda: whole if len(self.buffer) >= whole else None) is None:
            return None
        with memoryview(self.buffer) as view:
            text, payload = bytes(view[head:head + skeleton]), bytes(view[head + skeleton:whole])
        del self.buffer[:whole]
        return _unpacked(text, payload)

    def close(self) -> None:
        """Close the read end."""
        os.close(self.fd)

    def _head_length(self) -> int | None:
        """The length of the next frame's first line once it is read, else None."""
        newline = self.buffer.find(b"\n", 0, packed.FRAME_HEAD_MAX)
        if newline >= 0:
            return newline + 1
        if len(self.buffer) >= packed.FRAME_HEAD_MAX:
            raise ChannelError("result channel sent bytes that do not start a frame")
        return None

    def _until(self, deadline: float, ready: Callable[[], int | None]) -> int | None:
        """Read until ``ready()`` gives a length; None at end of file."""
        while (found := ready()) is None:
            if self.eof:
                return None
            self._read_some(deadline)
        return found

    def _read_some(self, deadline: float) -> None:
        """Read what has come (end of file included), within the budget, before ``deadline``."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        ready, _, _ = select.select([self.fd], [], [], remaining)
        if not ready:
            raise TimeoutError
        chunk = os.read(self.fd, CHUNK)
        self.total += len(chunk)
        if self.total > self.limit:
            raise ChannelError(f"result channel sent more than {self.limit} bytes")
        self.eof = not chunk
        self.buffer += chunk


def _unpacked(skeleton: bytes, payload: bytes) -> dict[str, Any]:
    """A frame's object, its tensors' elements read from ``payload``."""
    try:
        value = packed.unpack(json.loads(skeleton), payload)
    except (ValueError, RecursionError) as exc:
        raise ChannelError(f"result channel sent a malformed frame: {exc}") from None
    if not isinstance(value, dict):
        raise ChannelError("result channel sent JSON that is not an object")
    return value


def await_ready(channel: FrameChannel, timeout_s: float, log: Callable[[], str],
                error: type[Exception]) -> list[str]:
    """Block until the runner on ``channel`` says it is ready; ``error`` (with ``log()``) if not.
    What its ranks cannot be confined by (logged as a warning, once per kind of gap)."""
    try:
        hello = channel.read(time.monotonic() + timeout_s)
    except (TimeoutError, ChannelError) as exc:
        raise error(f"runner not ready: {exc or 'timeout'}; {log()}") from None
    gaps = hello.get("confinement_gaps") if isinstance(hello, dict) else None
    if not isinstance(hello, dict) or not isinstance(gaps, list) or hello.get("ready") is not True:
        raise error(f"runner not ready (said {hello!r}); {log()}")
    if gaps and tuple(gaps) not in _WARNED:
        _WARNED.add(tuple(gaps))
        logger.warning("the sandbox cannot confine its ranks by: %s; learners' code could "
                       "communicate unseen", "; ".join(map(str, gaps)))
    return gaps
