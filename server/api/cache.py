"""Small LRUs of finished submissions, bounded in entries and in bytes: a done submission never
changes, and clients ask for it again and again (polling its JSON, or reopening its live
progress, which for a finished one is every event at once)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class Sized(Protocol):
    def __len__(self) -> int: ...


P = TypeVar("P", bound=Sized)


class DoneCache(Generic[P]):
    """Finished submissions' rendered answers by (id, admin view), with their owner's id; an
    answer's ``len`` is its size in bytes."""

    def __init__(self, size: int = 4096, max_bytes: int = 64 << 20) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self.items: OrderedDict[tuple[int, bool], tuple[int, P]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, submission_id: int, admin: bool) -> tuple[int, P] | None:
        """(owner id, answer) if cached."""
        with self.lock:
            item = self.items.get((submission_id, admin))
            if item is not None:
                self.items.move_to_end((submission_id, admin))
            return item

    def put(self, submission_id: int, admin: bool, owner_id: int, body: P) -> None:
        """Remember a finished submission's answer (not one larger than a quarter of the cache)."""
        if len(body) > self.max_bytes // 4:
            return
        with self.lock:
            old = self.items.pop((submission_id, admin), None)
            if old is not None:
                self.bytes -= len(old[1])
            self.items[(submission_id, admin)] = (owner_id, body)
            self.bytes += len(body)
            while len(self.items) > self.size or self.bytes > self.max_bytes:
                _, (_, evicted) = self.items.popitem(last=False)
                self.bytes -= len(evicted)

    def clear(self) -> None:
        """Forget everything (finished submissions were put back in the queue)."""
        with self.lock:
            self.items.clear()
            self.bytes = 0


@dataclass(frozen=True)
class FinishedEvents:
    """A finished submission's live-progress stream, rendered once: the ``status`` event, one
    ``case`` event per case (its id the case index), and ``done``."""

    status: bytes
    cases: tuple[bytes, ...]
    done: bytes

    def __len__(self) -> int:
        return len(self.status) + sum(len(case) for case in self.cases) + len(self.done)

    def body(self, seen: int) -> bytes:
        """The stream for a client that has the first ``seen`` cases (``Last-Event-ID`` + 1)."""
        return b"".join((self.status, *self.cases[seen:], self.done))
