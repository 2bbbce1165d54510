"""Per-rank state in a small shared file: what the monitor reads to see who runs and who waits."""

from __future__ import annotations

import mmap
import os
import struct

STATES = ("starting", "running", "blocked", "returned", "failed")
_SLOT = struct.Struct("<II")  # state index, change counter


class RankStatus:
    """A shared array of (state, change counter) slots, one per rank, backed by a file."""

    def __init__(self, path: str, world: int, create: bool = False):
        size = _SLOT.size * world
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
        try:
            if create:
                os.ftruncate(fd, size)
            self._map = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self.world = world

    def set(self, rank: int, state: str) -> None:
        """Record that ``rank`` is now in ``state`` (bumping its change counter)."""
        _, changes = _SLOT.unpack_from(self._map, rank * _SLOT.size)
        _SLOT.pack_into(self._map, rank * _SLOT.size, STATES.index(state), changes + 1)

    def read(self) -> list[tuple[str, int]]:
        """Every rank's (state, change counter)."""
        out = []
        for r in range(self.world):
            state, changes = _SLOT.unpack_from(self._map, r * _SLOT.size)
            out.append((STATES[state] if state < len(STATES) else "failed", changes))
        return out
