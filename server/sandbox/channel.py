"""Reading newline-delimited JSON from a pipe or socket with deadlines and a byte budget."""

from __future__ import annotations

import json
import logging
import os
import select
import time
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)
_WARNED: set[tuple[str, ...]] = set()


class ChannelError(Exception):
    """The result channel broke its protocol: bad JSON, too many bytes, or a timeout."""


class LineChannel:
    """Lines of JSON objects from the read end ``fd`` of a pipe or socket, at most ``limit``
    bytes in all."""

    def __init__(self, fd: int, limit: int) -> None:
        self.fd = fd
        self.limit = limit
        self.total = 0
        self.buffer = b""
        self.eof = False

    def read(self, deadline: float) -> dict[str, Any] | None:
        """The next object; None at end of file; ``TimeoutError`` once ``deadline`` passes."""
        while b"\n" not in self.buffer:
            if self.eof:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            self.total += len(chunk)
            if self.total > self.limit:
                raise ChannelError(f"result channel sent more than {self.limit} bytes")
            self.eof = not chunk
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ChannelError(f"result channel sent a line that is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise ChannelError("result channel sent JSON that is not an object")
        return value

    def close(self) -> None:
        """Close the read end."""
        os.close(self.fd)


def await_ready(channel: LineChannel, timeout_s: float, log: Callable[[], str],
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
