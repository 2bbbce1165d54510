"""Is the judge well? Workers report their sandboxes' health to the database; ``/healthz`` reads
it together with the queue, so it is degraded (503) when no sandbox can start anywhere, no
worker has claimed a waiting job for ``stall_s``, or every worker that reported has stopped
(its heartbeat writes fail), whatever machine the workers run on."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, delete, func
from sqlmodel import Session, col, select

from . import outage
from .db import SQLITE_BUSY_MS
from .models import QUEUED, Submission, WorkerStatus, utcnow
from .settings import Settings

#: a worker not heard from for this many heartbeats counts as gone
STALE_HEARTBEATS = 3
#: how long workers started with the server may take to report first (they import torch)
START_GRACE_S = 60.0
#: a data directory with less free space than this is full (SQLite cannot grow its journal)
LOW_DISK_BYTES = 16 << 20


def report(session: Session, worker_id: str, sandbox: str, failed_starts: int, failing: bool,
           last_error: str | None, ready: int) -> None:
    """Record a worker's heartbeat (``session``: a write session)."""
    row = session.get(WorkerStatus, worker_id) or WorkerStatus(
        id=worker_id, host=socket.gethostname()[:255], sandbox=sandbox)
    row.seen_at, row.failed_starts, row.failing = utcnow(), failed_starts, failing
    row.last_error = last_error[-2000:] if last_error else None
    row.ready = ready
    session.add(row)


def forget(session: Session, worker_id: str) -> None:
    """A worker that stops cleanly leaves no report behind."""
    session.exec(delete(WorkerStatus).where(col(WorkerStatus.id) == worker_id))


def healthy_peers(session: Session, worker_id: str, heartbeat_s: float) -> int:
    """How many other workers report sandboxes that start (a sick worker steps aside for
    them)."""
    return session.exec(select(func.count()).select_from(WorkerStatus).where(
        col(WorkerStatus.seen_at) > _stale(heartbeat_s), col(WorkerStatus.id) != worker_id,
        col(WorkerStatus.failing).is_(False))).one()


def _stale(heartbeat_s: float) -> datetime:
    """A report older than this is a gone worker's."""
    return utcnow() - timedelta(seconds=STALE_HEARTBEATS * heartbeat_s + 5)


@dataclass
class Health:
    """The judge's health: ok, or the reasons it is degraded; ``notes`` name a failing part
    that the rest of the judge covers for."""

    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    workers: list[dict[str, object]] = field(default_factory=list)
    oldest_wait_s: float | None = None

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong."""
        return not self.reasons


def check(session: Session, settings: Settings, since: datetime,
          expected_workers: int = 0) -> Health:
    """The judge's health now; ``since``: when this server started (a stall is measured from
    then at the earliest, so that jobs left from before a restart do not count against it);
    ``expected_workers``: how many workers this server started (none reporting is then a
    fault)."""
    now = utcnow()
    health = Health()
    live = session.exec(select(WorkerStatus)
                        .where(WorkerStatus.seen_at > _stale(settings.heartbeat_s))).all()
    health.workers = [{"id": w.id, "host": w.host, "sandbox": w.sandbox, "ready": w.ready,
                       "failed_starts": w.failed_starts, "failing": w.failing} for w in live]
    sick = [w for w in live if w.failing]
    errors = " | ".join(sorted({(w.last_error or "?").splitlines()[0][:300] for w in sick}))
    if live and len(sick) == len(live):
        health.reasons.append(
            f"no sandbox can start: every worker ({len(live)}) failed its last "
            f"{min(w.failed_starts for w in live)}+ sandbox starts; last error: {errors}")
    elif sick:
        health.notes.append(
            f"{len(sick)} of {len(live)} workers cannot start sandboxes "
            f"({', '.join(w.id for w in sick)}; the others serve); last error: {errors}")
    late = session.exec(select(WorkerStatus).where(
        WorkerStatus.seen_at <= _stale(settings.heartbeat_s), WorkerStatus.seen_at > since)).all()
    if late and (live or not expected_workers):  # else the silence below says it
        (health.notes if live else health.reasons).append(_late(late, now, len(live)))
    if expected_workers and not live:
        heard = session.exec(select(func.max(WorkerStatus.seen_at))).one()
        heard_since_start = heard is not None and _aware(heard) > since
        silent_s = (now - (_aware(heard) if heard_since_start else since)).total_seconds()
        allowed_s = STALE_HEARTBEATS * settings.heartbeat_s
        if silent_s > (allowed_s if heard_since_start else max(allowed_s, START_GRACE_S)):
            health.reasons.append(
                f"no worker has reported for {silent_s:.0f} s ({STALE_HEARTBEATS} heartbeats "
                f"are {allowed_s:g} s; {expected_workers} expected)")
    oldest = session.exec(select(func.min(Submission.created_at))
                          .where(Submission.status == QUEUED)).one()
    if oldest is not None:
        waiting_since = max(_aware(oldest), since)
        health.oldest_wait_s = round((now - _aware(oldest)).total_seconds(), 1)
        last_claim = session.exec(select(func.max(Submission.started_at))).one()
        idle_since = max(_aware(last_claim), since) if last_claim is not None else since
        stalled = min(now - waiting_since, now - idle_since).total_seconds()
        if stalled > settings.stall_s:
            health.reasons.append(
                f"no worker has claimed a queued job for {stalled:.0f} s "
                f"({len(live)} worker(s) reporting)")
    return health


def _late(late: Sequence[WorkerStatus], now: datetime, serving: int) -> str:
    """Names the workers that reported since the start but not for three heartbeats: their
    heartbeat writes fail (the worker's log says why), or they stopped without a word."""
    named = ", ".join(f"{w.id} {(now - _aware(w.seen_at)).total_seconds():.0f} s ago"
                      for w in late)
    return (f"{len(late)} worker(s) stopped reporting (last report: {named}): a heartbeat "
            "write fails, or the worker stopped"
            + (f"; {serving} other(s) serve" if serving else ""))


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=utcnow().tzinfo)


def write_probe(engine: Engine, wait_s: float = 1.0) -> str | None:
    """Why the database cannot be written now (locked for longer than ``wait_s``, down, full),
    or None: takes the write lock and gives it back, writing nothing."""
    try:
        if engine.dialect.name == "sqlite":
            raw = engine.raw_connection()  # our own BEGIN, not the engine's
            try:
                cursor = raw.cursor()
                cursor.execute(f"PRAGMA busy_timeout={int(wait_s * 1000)}")
                try:
                    cursor.execute("BEGIN IMMEDIATE")
                    cursor.execute("ROLLBACK")
                finally:
                    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
            finally:
                raw.close()
        else:
            with engine.connect() as conn, conn.begin():
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {int(wait_s * 1000)}")
                conn.exec_driver_sql("SELECT txid_current()")
    except Exception as exc:
        if not outage.unavailable(exc):
            raise
        return f"the database cannot be written: {outage.reason(exc)}"
    return None


def disk_problem(data_dir: Path, low_bytes: int = LOW_DISK_BYTES) -> str | None:
    """Why the data directory's disk cannot take writes (less than ``low_bytes`` free), or
    None."""
    try:
        free = shutil.disk_usage(data_dir).free
    except OSError as exc:
        return f"the data directory cannot be read: {exc}"
    if free < low_bytes:
        return f"the data directory's disk is full ({free >> 20} MiB free)"
    return None
