"""The files each rank writes for the judge (what it prints; its result), readable by the judge
only.

The judge creates every rank's files and keeps them open; each rank opens its own for writing
and deletes their names before it joins the group, so once the learner's code runs no rank can
read what another printed or returned (that would be a channel the judge can't see; printing is
not traffic) and a confined rank can create no file at all.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Self


def _path(job_dir: Path, kind: str, rank: int) -> Path:
    return job_dir / f"{kind}.{rank}"


class JudgeHeld:
    """The judge's side: one kind of file (``out``, ``result``) for every rank, held open."""

    def __init__(self, job_dir: Path, kind: str, world: int):
        self.fds = [os.open(_path(job_dir, kind, rank), os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    for rank in range(world)]

    def size(self, rank: int) -> int:
        """Bytes ``rank`` has written so far."""
        return os.fstat(self.fds[rank]).st_size

    def read(self, rank: int, limit: int) -> bytes:
        """The first ``limit`` bytes ``rank`` wrote."""
        return os.pread(self.fds[rank], limit, 0)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds:
            os.close(fd)


class RankOutputs(JudgeHeld):
    """What every rank printed (stdout and stderr together)."""

    def __init__(self, job_dir: Path, world: int):
        super().__init__(job_dir, "out", world)

    def total(self) -> int:
        """Bytes every rank together has printed so far."""
        return sum(self.size(rank) for rank in range(len(self.fds)))

    def merged(self, limit: int) -> str:
        """Every rank's lines, each prefixed with its rank, cut at ``limit`` characters."""
        lines = []
        for rank in range(len(self.fds)):
            text = self.read(rank, limit + 1).decode("utf-8", "replace")
            lines += [f"[rank {rank}] {line}" for line in text.splitlines()]
        merged = "\n".join(lines)
        return merged if len(merged) <= limit else merged[:limit] + "\n… (output cut)"


class RankResults(JudgeHeld):
    """The record each rank writes once its function has returned or raised."""

    def __init__(self, job_dir: Path, world: int):
        super().__init__(job_dir, "result", world)

    def record(self, rank: int) -> dict[str, Any] | None:
        """``rank``'s record, or None if it wrote none (or was cut off while writing it)."""
        try:
            record = json.loads(self.read(rank, self.size(rank)) or b"null")
        except ValueError:
            return None
        return record if isinstance(record, dict) else None


def open_own(job_dir: Path, kind: str, rank: int) -> int:
    """The rank's side: its file of ``kind``, open for appending, its name deleted."""
    path = _path(job_dir, kind, rank)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    path.unlink()
    return fd


def redirect_output(job_dir: Path, rank: int) -> None:
    """Send the rank's stdout and stderr to its output file."""
    fd = open_own(job_dir, "out", rank)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    sys.stderr = sys.stdout
