"""Doorbells between the API and the workers of one machine. A new submission wakes the idle
workers at once, so that an idle worker can wait long between looks at the queue (no load on the
database) without a job waiting for its next look; and a worker that wrote a submission's change
(claimed, cases so far, verdict) tells the API processes, whose event streams of that
submission then look at once instead of at their next poll.

Each worker listens on a Unix datagram socket in a folder named after the database (every
process that shares the queue on this machine finds the same folder); the API rings every
socket there after it queued a job; each API process that follows submissions listens likewise
(``*.watch``), and a worker rings those after each commit. A bell whose process died is
removed by the next ring that finds no socket behind its name. On Postgres a worker also
``LISTEN``s on the queue's channel, which the transaction that queues (or puts back) a job
notifies when it commits: that wakes the workers of every machine. A bell is only a hint: a
lost ring costs one idle wait, never a job (a worker whose listening connection fails keeps
looking by itself); a lost announcement costs a stream one poll (``api.watch``), and on
Postgres a worker of another machine announces nothing here: its changes are seen at the next
poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import select
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import psycopg
from sqlalchemy import make_url
from sqlmodel import Session

#: the Postgres channel a committed job is announced on
CHANNEL = "cjudge_jobs"
#: the bells of idle workers, and of API processes following submissions, in :func:`folder`
WORKERS, WATCHERS = ".sock", ".watch"


def folder(database_url: str) -> Path:
    """The doorbells of this queue's workers and API processes on this machine (a short path:
    socket paths are limited to about 100 bytes)."""
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"cjudge-bell-{os.getuid()}-{digest}"


def ring(database_url: str) -> None:
    """Wake every worker listening for this queue; never raises."""
    _ring_all(database_url, WORKERS, b"!")


def announce(database_url: str, submission_id: int) -> None:
    """Tell every API process following this queue on this machine that ``submission_id``
    changed (a commit of the worker's); never raises."""
    _ring_all(database_url, WATCHERS, str(submission_id).encode())


def _ring_all(database_url: str, suffix: str, message: bytes) -> None:
    """Send ``message`` to every bell of this queue named ``*suffix``; never raises."""
    place = folder(database_url)
    try:
        bells = list(place.glob(f"*{suffix}"))
    except OSError:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        sender.setblocking(False)
        for bell in bells:
            try:
                sender.sendto(message, str(bell))
            except ConnectionRefusedError:  # no socket behind the name: its process died
                with contextlib.suppress(OSError):
                    bell.unlink()
            except OSError:  # gone, or its queue full: it is awake
                pass


def _bind(database_url: str, name: str) -> tuple[Path, socket.socket]:
    """A non-blocking datagram socket bound as bell ``name`` of this queue (a stale file of
    that name replaced)."""
    place = folder(database_url)
    place.mkdir(mode=0o700, exist_ok=True)
    path = place / name
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    return path, sock


def _unbind(path: Path, sock: socket.socket) -> None:
    """Close a bell's socket and remove its name."""
    sock.close()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


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
        self.path, self.sock = _bind(database_url, f"{name}{WORKERS}")
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
        _unbind(self.path, self.sock)
        if self.listener is not None:
            self.listener.close()


class WatchBell:
    """An API process's bell, read in its event loop: ``on_changed`` is called with the ids of
    the submissions announced (:func:`announce`) since the last read."""

    def __init__(self, database_url: str, on_changed: Callable[[set[int]], None]) -> None:
        # the pid alone could be another process's where pid namespaces share a /tmp
        name = f"{os.getpid()}-{secrets.token_hex(4)}{WATCHERS}"
        self.path, self.sock = _bind(database_url, name)
        self.on_changed = on_changed
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.sock.fileno(), self._read)

    def _read(self) -> None:
        changed: set[int] = set()
        while True:
            try:
                message = self.sock.recv(32)
            except BlockingIOError:
                break
            if message.isdigit():
                changed.add(int(message))
        self.on_changed(changed)

    def close(self) -> None:
        """Stop listening."""
        self.loop.remove_reader(self.sock.fileno())
        _unbind(self.path, self.sock)
