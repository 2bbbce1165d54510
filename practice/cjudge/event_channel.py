"""The judge's end of the ranks' trace channel: a Unix socket each rank writes its events to.

Besides trace events, each rank marks the start and the end of the graded call. At each mark
the judge reads the rank's ``/proc/<pid>/io`` write counter (which counts gloo's socket writes,
not the channel's) and only then lets the rank go on, so it knows how many bytes the rank really
wrote while its function ran, whatever the rank did to the monitor inside its own process.
"""

from __future__ import annotations

import json
import selectors
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .protocol import TraceEvent

MAX_EVENTS = 200_000


def written_bytes(pid: int) -> int | None:
    """Bytes ``pid`` has written through write(2)-family calls so far, or None if unreadable."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("wchar:"))
    except (OSError, StopIteration, ValueError):
        return None


@dataclass
class RankTap:
    """What the judge knows of one rank's connection: who it is and its write counters."""

    rank: int
    pid: int
    marks: dict[str, int | None] = field(default_factory=dict)
    output_marks: dict[str, int] = field(default_factory=dict)
    tampered: bool = False


class EventChannel:
    """Accepts one connection per rank and collects the events it sends, tagged with that rank.

    A rank names itself (rank and pid) once, on its first line; every later event is attributed
    to that connection's rank whatever it claims, and malformed lines are dropped.
    """

    def __init__(self, path: Path, output_size: Callable[[int], int]):
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(64)
        self._server.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._server, selectors.EVENT_READ)
        self._buffers: dict[socket.socket, bytes] = {}
        self._taps: dict[socket.socket, RankTap] = {}
        self._output_size = output_size
        self.events: list[TraceEvent] = []

    def poll(self, timeout: float) -> int:
        """Read whatever has arrived within ``timeout`` seconds; how many sockets were ready."""
        ready = self._sel.select(timeout)
        for key, _ in ready:
            if key.fileobj is self._server:
                conn, _ = self._server.accept()
                conn.setblocking(False)
                self._buffers[conn] = b""
                self._sel.register(conn, selectors.EVENT_READ)
            else:
                self._read(key.fileobj)  # type: ignore[arg-type]
        return len(ready)

    def _read(self, conn: socket.socket) -> None:
        try:
            chunk = conn.recv(1 << 16)
        except (BlockingIOError, ConnectionError):
            chunk = b""
        if not chunk:
            self._sel.unregister(conn)
            conn.close()
            return
        data = self._buffers[conn] + chunk
        *lines, self._buffers[conn] = data.split(b"\n")
        for line in lines:
            self._take(conn, line)

    def _take(self, conn: socket.socket, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return
        if not isinstance(record, dict):
            return
        tap = self._taps.get(conn)
        if tap is None:
            if isinstance(record.get("rank"), int) and isinstance(record.get("pid"), int):
                self._taps[conn] = RankTap(record["rank"], record["pid"])
            return
        if "phase" in record:
            self._mark(conn, tap, str(record["phase"]))
        elif len(self.events) < MAX_EVENTS and isinstance(record.get("bytes"), int):
            record["rank"] = tap.rank
            self.events.append(record)  # type: ignore[arg-type]

    def _mark(self, conn: socket.socket, tap: RankTap, phase: str) -> None:
        if phase not in ("start", "end") or phase in tap.marks or \
                (phase == "end" and "start" not in tap.marks):
            tap.tampered = True
        tap.marks[phase] = written_bytes(tap.pid)
        tap.output_marks[phase] = self._output_size(tap.rank)
        try:
            conn.setblocking(True)
            conn.sendall(b"k")
            conn.setblocking(False)
        except OSError:
            tap.tampered = True

    def wire_bytes(self) -> dict[int, int | None]:
        """Per rank: bytes written while its function ran (its output excluded), or None if the
        judge could not tell (counters unreadable, marks missing, repeated or out of order)."""
        wire: dict[int, int | None] = {}
        for tap in self._taps.values():
            start, end = tap.marks.get("start"), tap.marks.get("end")
            if tap.tampered or tap.rank in wire or start is None or end is None:
                wire[tap.rank] = None
                continue
            printed = tap.output_marks["end"] - tap.output_marks["start"]
            wire[tap.rank] = max(end - start - printed, 0)
        return wire

    def pids(self) -> list[int]:
        """The process ids the ranks gave when they connected."""
        return [tap.pid for tap in self._taps.values()]

    def drain(self) -> list[TraceEvent]:
        """Everything still buffered, then close; events ordered by rank and sequence."""
        while self.poll(0):
            pass
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self._sel.close()
        return sorted(self.events, key=lambda e: (e["rank"], e.get("seq", 0)))
