"""The judge's end of the ranks' trace channel: a Unix socket each rank writes its events to."""

from __future__ import annotations

import json
import selectors
import socket
from pathlib import Path

from .protocol import TraceEvent

MAX_EVENTS = 200_000


class EventChannel:
    """Accepts one connection per rank and collects the events it sends, tagged with that rank.

    A rank names itself once, on its first line; every later event is attributed to that
    connection's rank whatever it claims, and malformed lines are dropped.
    """

    def __init__(self, path: Path):
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(64)
        self._server.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._server, selectors.EVENT_READ)
        self._buffers: dict[socket.socket, bytes] = {}
        self._ranks: dict[socket.socket, int] = {}
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
        if conn not in self._ranks:
            if isinstance(record.get("rank"), int):
                self._ranks[conn] = record["rank"]
            return
        if len(self.events) < MAX_EVENTS and isinstance(record.get("bytes"), int):
            record["rank"] = self._ranks[conn]
            self.events.append(record)  # type: ignore[arg-type]

    def drain(self) -> list[TraceEvent]:
        """Everything still buffered, then close; events ordered by rank and sequence."""
        while self.poll(0):
            pass
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self._sel.close()
        return sorted(self.events, key=lambda e: (e["rank"], e.get("seq", 0)))
