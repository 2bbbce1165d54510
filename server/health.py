"""Is the judge well? Workers report their sandboxes' health to the database; ``/healthz`` reads
it together with the queue, so it is degraded (503) when no sandbox can start anywhere or no
worker has claimed a waiting job for ``stall_s``, whatever machine the workers run on."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from .models import QUEUED, Submission, WorkerStatus, utcnow
from .settings import Settings

#: a worker not heard from for this many heartbeats counts as gone
STALE_HEARTBEATS = 3


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


@dataclass
class Health:
    """The judge's health: ok, or the reasons it is degraded."""

    reasons: list[str] = field(default_factory=list)
    workers: list[dict] = field(default_factory=list)
    oldest_wait_s: float | None = None

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong."""
        return not self.reasons


def check(session: Session, settings: Settings, since: datetime) -> Health:
    """The judge's health now; ``since``: when this server started (a stall is measured from
    then at the earliest, so that jobs left from before a restart do not count against it)."""
    now = utcnow()
    health = Health()
    stale = now - timedelta(seconds=STALE_HEARTBEATS * settings.heartbeat_s + 5)
    live = session.exec(select(WorkerStatus).where(WorkerStatus.seen_at > stale)).all()
    health.workers = [{"id": w.id, "host": w.host, "sandbox": w.sandbox, "ready": w.ready,
                       "failed_starts": w.failed_starts, "failing": w.failing} for w in live]
    if live and all(w.failing for w in live):
        errors = sorted({(w.last_error or "?").splitlines()[0][:300] for w in live})
        health.reasons.append(
            f"no sandbox can start: every worker ({len(live)}) failed its last "
            f"{min(w.failed_starts for w in live)}+ sandbox starts; last error: "
            + " | ".join(errors))
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


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=utcnow().tzinfo)
