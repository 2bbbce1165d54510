"""A doorbell between the API and the idle workers of one machine: a new submission wakes them
at once, so that an idle worker can wait long between looks at the queue (no load on the
database) without a job waiting for its next look.

Each worker listens on a Unix datagram socket in a folder named after the database (every
process that shares the queue on this machine finds the same folder); the API rings every
socket there after it queued a job. A bell is only a hint: a lost ring costs one idle wait,
never a job, and workers on other machines (Postgres deployments) keep looking by themselves.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import socket
import tempfile
from pathlib import Path


def folder(database_url: str) -> Path:
    """The doorbells of the workers of this queue on this machine (a short path: socket paths
    are limited to about 100 bytes)."""
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"cjudge-bell-{os.getuid()}-{digest}"


def ring(database_url: str) -> None:
    """Wake every worker listening for this queue; never raises."""
    place = folder(database_url)
    try:
        bells = list(place.glob("*.sock"))
    except OSError:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        sender.setblocking(False)
        for bell in bells:
            with contextlib.suppress(OSError):  # gone, or its queue full: it is awake
                sender.sendto(b"!", str(bell))


class Doorbell:
    """One worker's bell: :meth:`wait` returns early when it rings."""

    def __init__(self, database_url: str, name: str) -> None:
        place = folder(database_url)
        place.mkdir(mode=0o700, exist_ok=True)
        self.path = place / f"{name}.sock"
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.setblocking(False)

    def wait(self, timeout_s: float) -> bool:
        """Sleep up to ``timeout_s``; True if the bell rang (every ring so far is taken)."""
        ready, _, _ = select.select([self.sock], [], [], timeout_s)
        rang = False
        while ready:
            try:
                self.sock.recv(64)
                rang = True
            except BlockingIOError:
                break
        return rang

    def ring(self) -> None:
        """Wake this bell's own :meth:`wait` (a worker asked to stop)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender, \
                contextlib.suppress(OSError):
            sender.sendto(b"!", str(self.path))

    def close(self) -> None:
        """Stop listening."""
        self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
