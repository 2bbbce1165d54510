"""Database outages: which errors mean "the database cannot be used right now" (locked, down,
full) rather than a bug, logging an outage once per interval, and waiting one out."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

T = TypeVar("T")
#: what the API tells a client to wait while the database is unavailable
RETRY_AFTER_S = 5
#: an outage is logged when it starts, then at most once per this many seconds
LOG_EVERY_S = 30.0
#: SQLite's words for a database that is busy, full or gone (its other OperationalErrors, such
#: as "no such table", are bugs)
SQLITE_UNAVAILABLE = ("locked", "busy", "full", "unable to open", "disk i/o", "readonly")


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be used right now: locked past the busy
    timeout, down, unreachable, out of connections or out of disk."""
    if isinstance(exc, sqlite3.OperationalError):
        return any(word in str(exc).lower() for word in SQLITE_UNAVAILABLE)
    if isinstance(exc, PoolTimeout):
        return True
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return False
    if isinstance(exc.orig, sqlite3.Error):
        return unavailable(exc.orig)
    return True


def reason(exc: BaseException) -> str:
    """The database's own first line of ``exc``, short enough for a log line or a reason."""
    orig = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines() or [type(orig).__name__]
    return lines[0][:200]


class OutageLog:
    """Logs an outage once when it starts, then at most once per ``every_s`` (saying how many
    failures were not logged), and once when it ends."""

    def __init__(self, logger: logging.Logger, every_s: float = LOG_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger, self.every_s, self.clock = logger, every_s, clock
        self.lock = threading.Lock()
        self.logged_at: float | None = None  # None: no outage
        self.unlogged = 0

    def failed(self, what: str, exc: BaseException) -> None:
        """A failure of ``what`` because the database is unavailable."""
        with self.lock:
            now = self.clock()
            if self.logged_at is not None and now - self.logged_at < self.every_s:
                self.unlogged += 1
                return
            first, unlogged = self.logged_at is None, self.unlogged
            self.logged_at, self.unlogged = now, 0
        more = f" ({unlogged} more failures since the last line)" if unlogged else ""
        self.logger.warning("the database is unavailable%s: %s failed: %s; retrying%s",
                            "" if first else " still", what, reason(exc), more)

    def recovered(self) -> None:
        """The database answered again."""
        with self.lock:
            if self.logged_at is None:
                return
            self.logged_at, self.unlogged = None, 0
        self.logger.warning("the database is available again")


def persist(call: Callable[[], T], deadline: float, outage: OutageLog, what: str,
            stop: threading.Event | None = None) -> T:
    """``call()``, tried again with growing waits while the database is unavailable, until the
    monotonic ``deadline`` (or ``stop``); then the last error is raised."""
    wait = 0.05
    stop = stop or threading.Event()
    while True:
        try:
            value = call()
        except Exception as exc:
            if not unavailable(exc):
                raise
            outage.failed(what, exc)
            wait = min(2.0, wait * 2, deadline - time.monotonic())
            if wait <= 0 or stop.wait(wait):
                raise
            continue
        outage.recovered()
        return value
