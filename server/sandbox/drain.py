"""Draining a child's stdout/stderr in a thread: keep a bounded head, count the rest."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable


class Drain:
    """Reads ``stream`` to its end, keeping the first ``keep`` bytes; calls ``on_flood`` once
    when more than ``limit`` bytes have come (then keeps reading, so the writer never blocks)."""

    def __init__(self, stream: io.BufferedReader, keep: int, limit: int | None = None,
                 on_flood: Callable[[], None] | None = None) -> None:
        self.stream = stream
        self.keep = keep
        self.limit = limit
        self.on_flood = on_flood
        self.head = bytearray()
        self.total = 0
        self.flooded = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while chunk := self.stream.read1(1 << 16):
            self.total += len(chunk)
            if len(self.head) < self.keep:
                self.head += chunk[: self.keep - len(self.head)]
            if self.limit is not None and self.total > self.limit and not self.flooded:
                self.flooded = True
                if self.on_flood is not None:
                    self.on_flood()
        self.stream.close()

    def text(self, timeout: float = 2.0) -> str:
        """What was kept, as text, once the stream ended (or ``timeout`` passed)."""
        self.thread.join(timeout)
        return bytes(self.head).decode("utf-8", "replace")
