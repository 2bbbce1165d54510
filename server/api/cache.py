"""A small LRU of finished submissions' JSON: a done submission never changes, and polling
clients ask for it again and again."""

from __future__ import annotations

import threading
from collections import OrderedDict


class DoneCache:
    """Serialized finished submissions by (id, admin view), with their owner's id."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
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
        """Remember a finished submission's JSON."""
        with self.lock:
            self.items[(submission_id, admin)] = (owner_id, body)
            if len(self.items) > self.size:
                self.items.popitem(last=False)
