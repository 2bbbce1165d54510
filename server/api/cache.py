"""LRUs of finished submissions, bounded in bytes (cachetools' ``LRUCache`` sized by each
answer's length): a done submission never changes, and clients ask for it again and again
(polling its JSON, or reopening its event stream, which for a finished one is every event at
once)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from cachetools import LRUCache

#: what an entry costs besides its answer (its key, the tuples, the LRU's bookkeeping), so that
#: many small answers are bounded too
ENTRY_BYTES = 256


class Sized(Protocol):
    def __len__(self) -> int: ...


P = TypeVar("P", bound=Sized)


class DoneCache(Generic[P]):
    """Finished submissions' rendered answers by (id, admin view), with their owner's id; an
    answer's ``len`` is its size in bytes. Thread-safe."""

    def __init__(self, max_bytes: int = 64 << 20) -> None:
        self.max_bytes = max_bytes
        self.items: LRUCache[tuple[int, bool], tuple[int, P]] = LRUCache(
            maxsize=max_bytes, getsizeof=lambda item: len(item[1]) + ENTRY_BYTES)
        self.lock = threading.Lock()

    @property
    def bytes(self) -> int:
        """What the cached answers count for (``ENTRY_BYTES`` each besides their size)."""
        return int(self.items.currsize)

    def get(self, submission_id: int, admin: bool) -> tuple[int, P] | None:
        """(owner id, answer) if cached."""
        with self.lock:
            return self.items.get((submission_id, admin))

    def put(self, submission_id: int, admin: bool, owner_id: int, body: P) -> None:
        """Remember a finished submission's answer (not one larger than a quarter of the cache),
        the least recently used ones going first when the cache is full."""
        if len(body) + ENTRY_BYTES > self.max_bytes // 4:
            return
        with self.lock:
            self.items[(submission_id, admin)] = (owner_id, body)

    def clear(self) -> None:
        """Forget everything (finished submissions were put back in the queue)."""
        with self.lock:
            self.items.clear()


@dataclass(frozen=True)
class FinishedEvents:
    """A finished submission's event stream, rendered once: the ``status`` event, one
    ``case`` event per case (its id the case index), and ``done``."""

    status: bytes
    cases: tuple[bytes, ...]
    done: bytes

    def __len__(self) -> int:
        return len(self.status) + sum(len(case) for case in self.cases) + len(self.done)

    def body(self, seen: int) -> bytes:
        """The stream for a client that has the first ``seen`` cases (``Last-Event-ID`` + 1)."""
        return b"".join((self.status, *self.cases[seen:], self.done))
