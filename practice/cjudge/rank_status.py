"""Per-rank state in small shared files: what the judge reads to see who runs and who waits.

Each rank has a file of its own, shared by that rank and the judge only: the judge maps every
file before the ranks start (never into a child: ``MADV_DONTFORK``); each rank maps its own and
deletes its name before it joins the group, so once any rank runs the learner's code no rank can
open another's (a shared page two ranks could both reach would be a channel the judge can't see).
"""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

STATES = ("starting", "running", "blocked", "returned", "failed")
_SLOT = struct.Struct("<II")  # state index, change counter


def _mapped(path: Path, create: bool) -> mmap.mmap:
    fd = os.open(path, os.O_RDWR | (os.O_CREAT | os.O_EXCL if create else 0), 0o600)
    try:
        if create:
            os.ftruncate(fd, _SLOT.size)
        return mmap.mmap(fd, _SLOT.size)
    finally:
        os.close(fd)


def _path(job_dir: Path, rank: int) -> Path:
    return job_dir / f"status.{rank}"


class RankStatus:
    """The judge's view: every rank's (state, change counter)."""

    def __init__(self, job_dir: Path, world: int):
        self._maps = [_mapped(_path(job_dir, rank), create=True) for rank in range(world)]
        for page in self._maps:
            page.madvise(mmap.MADV_DONTFORK)

    def read(self) -> list[tuple[str, int]]:
        """Every rank's (state, change counter)."""
        out = []
        for page in self._maps:
            state, changes = _SLOT.unpack_from(page)
            out.append((STATES[state] if state < len(STATES) else "failed", changes))
        return out


class RankSlot:
    """One rank's own state, which only it and the judge can reach (its file's name is gone)."""

    def __init__(self, job_dir: Path, rank: int):
        path = _path(job_dir, rank)
        self._map = _mapped(path, create=False)
        path.unlink()

    def set(self, state: str) -> None:
        """Record that this rank is now in ``state`` (bumping its change counter)."""
        _, changes = _SLOT.unpack_from(self._map)
        _SLOT.pack_into(self._map, 0, STATES.index(state), changes + 1)
