"""What each rank prints, in a file readable by the judge only.

The judge creates every rank's output file and keeps it open; each rank opens its own for
writing and deletes its name before any learner code runs, so no rank can read what another
printed (that would be a channel the switch can't see; printing is not traffic) and a confined
rank can create no file at all.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Self


def _path(job_dir: Path, kind: str, rank: int) -> Path:
    return job_dir / f"{kind}.{rank}"


class RankOutputs:
    """The judge's side: what every rank printed (stdout and stderr together), held open."""

    def __init__(self, job_dir: Path, world: int):
        self.fds = [os.open(_path(job_dir, "out", rank), os.O_RDONLY | os.O_CREAT | os.O_EXCL,
                            0o600) for rank in range(world)]

    def size(self, rank: int) -> int:
        """Bytes ``rank`` has printed so far."""
        return os.fstat(self.fds[rank]).st_size

    def total(self) -> int:
        """Bytes every rank together has printed so far."""
        return sum(self.size(rank) for rank in range(len(self.fds)))

    def merged(self, limit: int) -> str:
        """Every rank's lines, each prefixed with its rank, cut at ``limit`` characters."""
        lines = []
        for rank in range(len(self.fds)):
            text = os.pread(self.fds[rank], limit + 1, 0).decode("utf-8", "replace")
            lines += [f"[rank {rank}] {line}" for line in text.splitlines()]
        merged = "\n".join(lines)
        return merged if len(merged) <= limit else merged[:limit] + "\n… (output cut)"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds:
            os.close(fd)


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
