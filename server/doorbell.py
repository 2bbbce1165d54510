"""A doorbell between the API and the idle workers of one machine: a new submission wakes them
at once, so that an idle worker can wait long between looks at the queue (no load on the
database) without a job waiting for its next look.

Each worker listens on a Unix datagram socket in a folder named after the database (every
process that shares the queue on this machine finds the same folder); the API rings every
socket there after it queued a job. On Postgres a worker also ``LISTEN``s on the queue's
channel, which the transaction that queues (or puts back) a job notifies when it commits: that
wakes the workers of every machine. A bell is only a hint: a lost ring costs one idle wait,
never a job (a worker whose listening connection fails keeps looking by itself).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import socket
import tempfile
from pathlib import Path

import psycopg
from sqlalchemy import make_url
from sqlmodel import Session

#: the Postgres channel a committed job is announced on
CHANNEL = "cjudge_jobs"


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


def notify(session: Session) -> None:
    """Announce a job to every worker of a Postgres queue when ``session``'s transaction
    commits (``NOTIFY`` is delivered at commit, never for a rolled-back job); nothing on SQLite,
    whose workers share this machine's doorbells."""
    if session.get_bind().dialect.name == "postgresql":
        session.connection().exec_driver_sql(f"NOTIFY {CHANNEL}")


class Listener:
    """A connection that ``LISTEN``s on a Postgres queue's channel, made again after it fails."""

    def __init__(self, database_url: str) -> None:
        self.dsn = make_url(database_url).set(drivername="postgresql").render_as_string(
            hide_password=False)
        self.conn: psycopg.Connection | None = None

    def fileno(self) -> int | None:
        """The socket to wait on (connecting first if needed), or None if Postgres does not
        answer now (the worker then only looks by itself)."""
        if self.conn is None:
            try:
                self.conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)
                self.conn.execute(f"LISTEN {CHANNEL}")
            except psycopg.Error:
                self.close()
                return None
        return self.conn.pgconn.socket

    def take(self) -> bool:
        """Read what arrived; True if a job was announced, or the connection failed (a job may
        have been announced meanwhile: look at the queue)."""
        assert self.conn is not None
        try:
            self.conn.pgconn.consume_input()
            announced = False
            while self.conn.pgconn.notifies() is not None:
                announced = True
            return announced
        except psycopg.Error:
            self.close()
            return True

    def close(self) -> None:
        """Stop listening."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Doorbell:
    """One worker's bell: :meth:`wait` returns early when it rings (or, on Postgres, when a
    job is announced)."""

    def __init__(self, database_url: str, name: str) -> None:
        place = folder(database_url)
        place.mkdir(mode=0o700, exist_ok=True)
        self.path = place / f"{name}.sock"
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.setblocking(False)
        self.listener = Listener(database_url) if database_url.startswith("postgresql") else None

    def wait(self, timeout_s: float) -> bool:
        """Sleep up to ``timeout_s``; True if the bell rang (every ring so far is taken)."""
        channel = self.listener.fileno() if self.listener is not None else None
        sources: list[socket.socket | int] = [self.sock] if channel is None else [self.sock, channel]
        ready, _, _ = select.select(sources, [], [], timeout_s)
        rang = False
        while self.sock in ready:
            try:
                self.sock.recv(64)
                rang = True
            except BlockingIOError:
                break
        if channel in ready and self.listener is not None:
            rang = self.listener.take() or rang
        return rang

    def ring(self) -> None:
        """Wake this bell's own :meth:`wait` (a worker asked to stop)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender, \
                contextlib.suppress(OSError):
            sender.sendto(b"!", str(self.path))

    def close(self) -> None:
        """Stop listening."""
        self.sock.close()
        if self.listener is not None:
            self.listener.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
