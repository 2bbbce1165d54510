"""Database tables, all of them: users, exercises (synced from ``exercises/``) and their served
versions, the course's assignments (deadlines), submissions (the queue) and their scores,
display names and workers' health reports."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Float, Index, Text
from sqlmodel import Field, SQLModel

QUEUED, RUNNING, DONE = "queued", "running", "done"
#: a user's role: the admin (from the settings), the course's staff, or a learner
ADMIN, STAFF, LEARNER = "admin", "staff", "learner"
#: the roles that read every learner's work, set deadlines and regrade
STAFF_ROLES = (ADMIN, STAFF)


def utcnow() -> datetime:
    """Now, as an aware UTC datetime."""
    return datetime.now(UTC)


def new_identity() -> str:
    """A random per-account identity that tokens carry (a re-used id is another account)."""
    return secrets.token_hex(16)


class User(SQLModel, table=True):
    """An account; ``role`` is "learner", "staff" or "admin" (``STAFF_ROLES`` see everyone's
    work). ``username_key`` is the name casefolded (names are unique whatever their case);
    tokens carry ``identity`` and ``generation``, and bumping ``generation`` ends every session
    of the account."""

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(max_length=64, unique=True, index=True)
    username_key: str = Field(max_length=64, unique=True, index=True)
    password_hash: str = Field(max_length=255)
    role: str = Field(default=LEARNER, max_length=16)
    identity: str = Field(default_factory=new_identity, max_length=32)
    generation: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class Exercise(SQLModel, table=True):
    """What learners may see of an exercise folder, as of the last start-up."""

    id: str = Field(primary_key=True, max_length=64)
    title_en: str
    title_zh: str
    statement_en: str = Field(sa_column=Column(Text, nullable=False))
    statement_zh: str = Field(sa_column=Column(Text, nullable=False))
    starter: str = Field(sa_column=Column(Text, nullable=False))
    samples: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    content_hash: str = Field(max_length=128)
    active: bool = True
    synced_at: datetime = Field(default_factory=utcnow)


class Assignment(SQLModel, table=True):
    """An exercise the course assigns, with its deadline (None: no deadline). With no
    assignment at all, a course assigns every exercise."""

    exercise_id: str = Field(foreign_key="exercise.id", primary_key=True, max_length=64)
    due: datetime | None = None
    updated_at: datetime = Field(default_factory=utcnow)


class Submission(SQLModel, table=True):
    """A learner's submission and its place in the queue (status queued -> running -> done);
    ``history``: the verdicts it had before each regrade, oldest first (None: never regraded);
    ``late``: made after its exercise's deadline."""

    __table_args__ = (
        Index("ix_submission_status_id", "status", "id"),
        Index("ix_submission_user_created", "user_id", "created_at"),
        Index("ix_submission_user_status", "user_id", "status"),
        Index("ix_submission_ip_status", "client_ip", "status"),
        Index("ix_submission_ip_started", "client_ip", "started_at"),
        Index("ix_submission_user_started", "user_id", "started_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id")
    exercise_id: str = Field(foreign_key="exercise.id", max_length=64, index=True)
    content_hash: str = Field(max_length=128)
    code: str = Field(sa_column=Column(Text, nullable=False))
    filename: str = Field(default="solution.py", max_length=128)
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(default=QUEUED, max_length=16)
    verdict: str | None = Field(default=None, max_length=32)
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    cases_so_far: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    attempts: int = 0
    worker_id: str | None = Field(default=None, max_length=128)
    lease_token: str | None = Field(default=None, max_length=64)
    lease_expires_at: datetime | None = None
    judge_log: str | None = Field(default=None, sa_column=Column(Text))
    history: list[Any] | None = Field(default=None, sa_column=Column(JSON))
    late: bool = False  # made after its exercise's deadline (kept in step when that moves)
    client_ip: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class Profile(SQLModel, table=True):
    """How a learner appears on leaderboards: ``display_name``, or anonymous while it is None."""

    user_id: int = Field(foreign_key="user.id", primary_key=True)
    display_name: str | None = Field(default=None, max_length=32)
    display_key: str | None = Field(default=None, max_length=32, unique=True)  # names.key: look
    updated_at: datetime = Field(default_factory=utcnow)


class SubmissionScore(SQLModel, table=True):
    """A finished submission's verdict and measures, written when its verdict is (again after a
    re-grade): what leaderboards rank without reading every verdict JSON."""

    __tablename__ = "submission_score"
    __table_args__ = (Index("ix_submission_score_exercise_verdict", "exercise_id", "verdict"),)

    submission_id: int = Field(foreign_key="submission.id", primary_key=True)
    exercise_id: str = Field(max_length=64)
    user_id: int = Field(foreign_key="user.id", index=True)
    verdict: str = Field(max_length=32)
    content_hash: str = Field(max_length=128)
    model_time_s: float | None = Field(default=None, sa_column=Column(Float))
    model_size: int | None = Field(default=None, sa_column=Column(BigInteger))
    bytes_sent: int | None = Field(default=None, sa_column=Column(BigInteger))
    headline_case: str | None = Field(default=None, max_length=128)
    #: some case measured below its exercise's floor (``model.floor.below``): never ranked
    below_floor: bool = False
    submitted_at: datetime
    scored_at: datetime = Field(default_factory=utcnow)


class ExerciseVersion(SQLModel, table=True):
    """An exercise's published content as it was when the server first served ``content_hash``:
    a submission's hash keeps naming what its learner was asked."""

    __tablename__ = "exercise_version"

    exercise_id: str = Field(max_length=64, primary_key=True)
    content_hash: str = Field(max_length=128, primary_key=True)
    title_en: str
    title_zh: str
    statement_en: str = Field(sa_column=Column(Text, nullable=False))
    statement_zh: str = Field(sa_column=Column(Text, nullable=False))
    first_served_at: datetime = Field(default_factory=utcnow)


class WorkerStatus(SQLModel, table=True):
    """A worker's last report: when it was seen and whether its sandboxes start."""

    __tablename__ = "worker_status"

    id: str = Field(primary_key=True, max_length=128)
    host: str = Field(max_length=255)
    sandbox: str = Field(max_length=16)
    seen_at: datetime = Field(default_factory=utcnow)
    started_at: datetime = Field(default_factory=utcnow)
    failed_starts: int = 0  # sandbox starts in a row that failed
    failing: bool = False  # it gave up waiting for sandboxes: its submissions end judge_error
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    ready: int = 0  # warm sandboxes waiting for a job


def saved_id(row: User | Submission) -> int:
    """The primary key of a row read from (or flushed to) the database: only a row that was
    never flushed has none."""
    if row.id is None:
        raise ValueError(f"{type(row).__name__} has no id before it is flushed")
    return row.id
