"""The ranks' printed output: one buffer per rank, a shared size limit, the merged text.

``sys.stdout`` is global (threads in CPython, one interpreter for all ranks under JSPI), so a
:class:`Router` installed there writes to the buffer of whichever rank is running, found through a
ContextVar. The merged text has each line prefixed with its rank, ranks in order, as the real
runtime gives it.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TextIO


class OutputLimitExceeded(BaseException):
    """Raised in a rank that prints past the case's output limit: the case stops."""


class Capture:
    """The output of one case's ranks, bounded by ``limit`` bytes in all."""

    def __init__(self, world: int, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.exceeded = False
        self._parts: list[list[str]] = [[] for _ in range(world)]

    def write(self, rank: int, text: str) -> int:
        """Keep ``text`` for ``rank``; past the limit, keep what fits and raise."""
        if self.exceeded:
            raise OutputLimitExceeded()
        size = len(text.encode("utf-8", "replace"))
        if self.size + size > self.limit:
            self._parts[rank].append(text[: max(self.limit - self.size, 0)])
            self.size = self.limit + 1
            self.exceeded = True
            raise OutputLimitExceeded()
        self.size += size
        self._parts[rank].append(text)
        return len(text)

    def merged(self) -> str:
        """Every rank's lines as ``[rank r] line``, rank by rank, cut at the limit."""
        lines = [f"[rank {rank}] {line}" for rank, parts in enumerate(self._parts)
                 for line in "".join(parts).splitlines()]
        text = "\n".join(lines)
        return text if len(text) <= self.limit else text[: self.limit] + "\n… (output cut)"


_TARGET: ContextVar[tuple[Capture, int] | None] = ContextVar("sim_output", default=None)


def capture_here(capture: Capture, rank: int) -> None:
    """Send this context's (a rank's) printed output to ``capture``."""
    _TARGET.set((capture, rank))


class Router:
    """A text stream for ``sys.stdout``/``sys.stderr``: the current rank's buffer, else ``fallback``."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, fallback: TextIO) -> None:
        self.fallback = fallback

    def write(self, text: str) -> int:
        """Write to the current rank's buffer (or the fallback stream outside ranks)."""
        target = _TARGET.get()
        if target is None:
            return self.fallback.write(text)
        return target[0].write(target[1], text)

    def flush(self) -> None:
        """Nothing is buffered on the way."""

    def isatty(self) -> bool:
        """Never a terminal."""
        return False

    def writable(self) -> bool:
        """Always writable."""
        return True
