"""A small LRU of finished submissions' JSON: a done submission never changes, and polling
clients ask for it again and again. Bounded in entries and in bytes."""

from __future__ import annotations

import threading
from collections import OrderedDict


class DoneCache:
    """Serialized finished submissions by (id, admin view), with their owner's id."""

    def __init__(self, size: int = 4096, max_bytes: int = 64 << 20) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self.items: OrderedDict[tuple[int, bool], tuple[int, bytes]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, submission_id: int, admin: bool) -> tuple[int, bytes] | None:
        """(owner id, JSON) if cached."""
        with self.lock:
            item = self.items.get((submission_id, admin))
            if item is not None:
                self.items.move_to_end((submission_id, admin))
            return item

    def put(self, submission_id: int, admin: bool, owner_id: int, body: bytes) -> None:
        """Remember a finished submission's JSON (not one larger than a quarter of the cache)."""
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
