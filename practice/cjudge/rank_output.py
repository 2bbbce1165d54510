"""What each rank prints (stdout and stderr, one file per rank), readable by the judge only.

The judge creates every rank's file and keeps it open; each rank opens its own for writing and
deletes its name before it joins the group, so once the learner's code runs no rank can read
what another printed (printing is not traffic, so that would be a channel the judge can't see).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _path(job_dir: Path, rank: int) -> Path:
    return job_dir / f"out.{rank}"


class RankOutputs:
    """The judge's side: every rank's output file, held open."""

    def __init__(self, job_dir: Path, world: int):
        self._fds = [os.open(_path(job_dir, rank), os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o600)
                     for rank in range(world)]

    def size(self, rank: int) -> int:
        """Bytes ``rank`` has printed so far."""
        return os.fstat(self._fds[rank]).st_size

    def total(self) -> int:
        """Bytes every rank together has printed so far."""
        return sum(self.size(rank) for rank in range(len(self._fds)))

    def merged(self, limit: int) -> str:
        """Every rank's lines, each prefixed with its rank, cut at ``limit`` characters."""
        lines = []
        for rank, fd in enumerate(self._fds):
            text = os.pread(fd, limit + 1, 0).decode("utf-8", "replace")
            lines += [f"[rank {rank}] {line}" for line in text.splitlines()]
        merged = "\n".join(lines)
        return merged if len(merged) <= limit else merged[:limit] + "\n… (output cut)"

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)


def redirect_output(job_dir: Path, rank: int) -> None:
    """The rank's side: send stdout and stderr to its file, then delete the file's name."""
    path = _path(job_dir, rank)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    path.unlink()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    sys.stderr = sys.stdout
