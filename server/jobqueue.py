"""The queue is the submissions table: enqueue with bounds, claim with a lease, finish once.

Every write is one transaction (``BEGIN IMMEDIATE`` on SQLite, row locks with ``SKIP LOCKED``
on Postgres). Only the holder of a submission's current lease token can record the cases
graded so far or its verdict, and only while it is running: a verdict is written exactly once.
"""

from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import case as when
from sqlalchemy import func, or_, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from cjudge.contract.verdict_json import CaseResult, VerdictJSON, dumps, json_safe

from .doorbell import notify
from .models import DONE, QUEUED, RUNNING, Submission, User, saved_id, utcnow
from .settings import Settings

RATE_WINDOW_S = 60


class Refused(Exception):
    """A submission refused by a bound: the HTTP status and the seconds to wait."""

    def __init__(self, status: int, retry_after: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Claim:
    """A job handed to a worker: the submission and the lease token that proves ownership."""

    id: int
    token: str
    exercise_id: str
    code: str
    filename: str
    seed: int
    attempts: int


def enqueue(session: Session, settings: Settings, user_id: int, exercise_id: str,
            content_hash: str, code: str, filename: str,
            client_ip: str | None = None) -> Submission:
    """Insert a queued submission, or raise ``Refused`` (rate, per-user, per-IP and global
    bounds).

    ``session`` must be a write session (see ``db.write_session``); the user's row is locked
    so that one user's concurrent submissions are counted one after the other.
    """
    session.exec(select(User.id).where(User.id == user_id).with_for_update()).one()
    now = utcnow()
    window_start = now - timedelta(seconds=RATE_WINDOW_S)
    recent = session.exec(
        select(Submission.created_at)
        .where(Submission.user_id == user_id, Submission.created_at > window_start)
        .order_by(col(Submission.created_at))
    ).all()
    if len(recent) >= settings.rate_per_minute:
        wait = RATE_WINDOW_S - (now - recent[-settings.rate_per_minute]).total_seconds()
        raise Refused(429, max(1, int(wait) + 1), "too many submissions; try again later")
    pending = _count(session, Submission.user_id == user_id,
                     col(Submission.status).in_([QUEUED, RUNNING]))
    if pending >= settings.max_queued_per_user:
        raise Refused(429, 5, f"you already have {pending} submissions waiting to be judged")
    if client_ip is not None and _count(session, Submission.client_ip == client_ip,
                                        col(Submission.status).in_([QUEUED, RUNNING])) \
            >= settings.max_pending_per_ip:
        raise Refused(429, 10, "too many submissions from this address are waiting to be judged")
    if _count(session, Submission.status == QUEUED) >= settings.max_queued_total:
        raise Refused(503, 30, "the judge is busy; try again in a minute")
    submission = Submission(user_id=user_id, exercise_id=exercise_id, content_hash=content_hash,
                            code=code, filename=filename, seed=secrets.randbits(62),
                            client_ip=client_ip)
    session.add(submission)
    session.flush()
    notify(session)
    return submission


def _claimable(now: Any, waited_s: float | None = None) -> Any:
    """A submission a worker may claim at ``now``: queued, or running on an expired lease (an
    orphan); with ``waited_s``, only one submitted at least that long ago."""
    claimable = or_(col(Submission.status) == QUEUED,
                    (col(Submission.status) == RUNNING) & (col(Submission.lease_expires_at) < now))
    if waited_s is None:
        return claimable
    return claimable & (col(Submission.created_at) < now - timedelta(seconds=waited_s))


def waiting(session: Session, waited_s: float | None = None) -> bool:
    """Whether a submission may be claimed (with ``waited_s``: one that waited that long), read
    without the write lock: an idle worker asks this first, so an empty queue never blocks the
    writers (a claim takes the lock)."""
    return session.exec(select(Submission.id).where(_claimable(utcnow(), waited_s))
                        .limit(1)).first() is not None


def running_jobs(session: Session) -> list[Submission]:
    """The submissions running now, on a live lease or an expired one."""
    return list(session.exec(select(Submission).where(Submission.status == RUNNING)
                             .order_by(col(Submission.id))).all())


def claim(session: Session, worker_id: str, lease_s: float, max_attempts: int,
          waited_s: float | None = None) -> Claim | None:
    """Lease a submission to ``worker_id`` (with ``waited_s``, only one that waited that long).
    Orphans first: a submission whose worker died (its lease expired) is taken before any new
    work. Then fairly: first by client address, then by user, each the one with the fewest
    submissions running on a live lease (an orphan is nobody's running job) and, among equals,
    the one served least recently; then the oldest. So one address's flood (however many
    accounts it made) and one user's flood delay only their own jobs: another learner's job
    goes next.

    A submission whose lease expired after ``max_attempts`` attempts is not handed out again:
    it is returned with ``attempts`` past the bound so the caller records a judge error.
    """
    now = utcnow()
    order = _claim_order(now)
    row = session.exec(
        select(Submission)
        .where(_claimable(now, waited_s))
        .order_by(*order)
        .limit(1)
        .with_for_update(skip_locked=True, of=Submission)
    ).first()
    if row is None:
        return None
    token = _lease(row, worker_id, now, lease_s, max_attempts)
    session.add(row)
    return Claim(id=saved_id(row), token=token, exercise_id=row.exercise_id, code=row.code,
                 filename=row.filename, seed=row.seed, attempts=row.attempts)


def _claim_order(now: datetime) -> tuple[Any, ...]:
    """``claim``'s order: orphans, then fairly by client address and by user, then the oldest."""
    other = aliased(Submission)

    def per(column: Any, other_column: Any) -> tuple[Any, Any]:
        """(running, last started) of the submissions sharing ``column`` with the candidate."""
        same = other_column == column
        live = (col(other.status) == RUNNING) & (col(other.lease_expires_at) >= now)
        running = (select(func.count()).select_from(other)
                   .where(same, live).correlate(Submission).scalar_subquery())
        served = (select(func.max(other.started_at)).select_from(other)
                  .where(same).correlate(Submission).scalar_subquery())
        return running, served.asc().nulls_first()

    address_running, address_served = per(Submission.client_ip, other.client_ip)
    owner_running, owner_served = per(Submission.user_id, other.user_id)
    orphans_first = when((col(Submission.status) == RUNNING, 0), else_=1)
    return (orphans_first, address_running, address_served, owner_running, owner_served,
            col(Submission.id))


def _lease(row: Submission, worker_id: str, now: datetime, lease_s: float,
           max_attempts: int) -> str:
    """Mark ``row`` running under a fresh lease to ``worker_id``, counting an attempt; the token."""
    row.status = RUNNING
    row.worker_id = worker_id
    row.lease_token = token = uuid.uuid4().hex
    row.lease_expires_at = now + timedelta(seconds=lease_s)
    row.started_at = now
    row.cases_so_far = []
    if row.attempts < max_attempts:
        row.attempts += 1
    else:
        row.attempts = max_attempts + 1  # given up: no new attempt is made
    return token


def renew(session: Session, claim_: Claim, lease_s: float) -> bool:
    """Extend the lease; False if it was lost (expired and taken by another worker)."""
    return _owned_update(session, claim_, lease_expires_at=utcnow() + timedelta(seconds=lease_s))


def record_cases_so_far(session: Session, claim_: Claim, cases: list[CaseResult]) -> bool:
    """Store the cases graded so far (for the event stream), NaN and infinities encoded; False
    if the lease was lost."""
    return _owned_update(session, claim_, cases_so_far=json_safe(cases))


def finish(session: Session, claim_: Claim, result: VerdictJSON, log: str | None,
           limit_bytes: int = 1 << 20) -> bool:
    """Record the final verdict, NaN and infinities encoded (``cjudge.contract.verdict_json``), bounded to
    ``limit_bytes`` of JSON (see ``bound_result``) and stored once (the cases are the result's,
    not also the cases_so_far column); False (nothing written) if the lease was lost. A ``log``
    of None keeps the log of earlier attempts."""
    stored = bound_result(json_safe(result), limit_bytes)
    values: dict[str, Any] = dict(
        status=DONE, verdict=result["verdict"], result=stored, cases_so_far=[],
        finished_at=utcnow(), lease_token=None, lease_expires_at=None,
    )
    if log is not None:
        values["judge_log"] = log
    return _owned_update(session, claim_, **values)


def bound_result(result: dict[str, Any], limit_bytes: int) -> dict[str, Any]:
    """``result`` cut to at most ``limit_bytes`` of JSON: the cases' traces go first (largest
    first, each emptied and marked ``trace_truncated``), then long texts are shortened and
    large lists emptied, large objects left out (a verdict JSON still: the API's models read
    it); the verdict, each case's verdict, messages and byte counts stay."""
    if _size(result) <= limit_bytes:
        return result
    result = json.loads(dumps(result, default=str))
    cases = [c for c in result.get("cases", []) if isinstance(c, dict)]
    for case in sorted(cases, key=lambda c: -_size(c.get("trace"))):
        if "trace" in case:
            case["trace"] = []
            case["trace_truncated"] = True
            if _size(result) <= limit_bytes:
                return result
    budget = max(256, limit_bytes // (4 * (len(cases) + 2)))
    for holder in (result, *cases):
        for key, value in list(holder.items()):
            if isinstance(value, str) and len(value) > budget:
                holder[key] = value[:budget] + " … (cut)"
            elif isinstance(value, list) and key != "cases" and _size(value) > budget:
                holder[key] = []
            elif isinstance(value, dict) and _size(value) > budget:
                del holder[key]
    return result


def _size(value: Any) -> int:
    return len(dumps(value, default=str)) if value is not None else 0


def release(session: Session, claim_: Claim, log: str | None, count_attempt: bool) -> bool:
    """Put a claimed submission back in the queue (after a judge error, or on shutdown)."""
    values: dict[str, Any] = dict(status=QUEUED, worker_id=None, lease_token=None,
                                  lease_expires_at=None, cases_so_far=[], judge_log=log)
    if not count_attempt:
        values["attempts"] = Submission.attempts - 1
    notify(session)
    return _owned_update(session, claim_, **values)


def regradable(exercise_id: str, verdict: str | None = None,
               submission_id: int | None = None) -> Any:
    """The query of ``exercise_id``'s finished submissions to judge again: those with
    ``verdict`` if given, only ``submission_id`` if given."""
    query = select(Submission).where(Submission.exercise_id == exercise_id,
                                     Submission.status == DONE)
    if verdict is not None:
        query = query.where(Submission.verdict == verdict)
    if submission_id is not None:
        query = query.where(Submission.id == submission_id)
    return query


def requeue(session: Session, rows: list[Submission], content_hash: str) -> int:
    """Put finished ``rows`` back in the queue to be judged against ``content_hash``, each
    verdict kept first in the row's ``history`` (with its time and judge version); how many."""
    now = utcnow()
    for row in rows:
        earlier = {"verdict": row.verdict, "finished_at": _iso(row.finished_at),
                   "judge_version": (row.result or {}).get("judge_version"),
                   "regraded_at": _iso(now)}
        row.history = [*(row.history or []), earlier]
        row.status, row.verdict, row.result, row.cases_so_far = QUEUED, None, None, []
        row.attempts, row.worker_id, row.lease_token, row.lease_expires_at = 0, None, None, None
        row.started_at = row.finished_at = None
        row.content_hash = content_hash
        session.add(row)
    if rows:
        notify(session)
    return len(rows)


def _iso(moment: datetime | None) -> str | None:
    """``moment`` in ISO 8601 UTC (SQLite hands back naive datetimes, stored as UTC)."""
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def counts(session: Session) -> dict[str, int]:
    """How many submissions are queued, running and done."""
    rows = session.exec(select(Submission.status, func.count()).group_by(Submission.status))
    found = {QUEUED: 0, RUNNING: 0, DONE: 0}
    found.update({status: n for status, n in rows})
    return found


def _owned_update(session: Session, claim_: Claim, **values: Any) -> bool:
    result = session.exec(
        update(Submission)
        .where(col(Submission.id) == claim_.id, col(Submission.lease_token) == claim_.token,
               col(Submission.status) == RUNNING)
        .values(**values)
    )
    return result.rowcount == 1


def _count(session: Session, *conditions: Any) -> int:
    return session.exec(select(func.count()).select_from(Submission).where(*conditions)).one()
