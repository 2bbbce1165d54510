"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class Credentials(BaseModel):
    """A username and password, to register or log in."""

    username: str = Field(pattern=r"^[A-Za-z0-9_.-]{3,32}$")
    password: str = Field(min_length=8, max_length=256)


class Registration(Credentials):
    """A new account: credentials, and the invite code when sign-up needs one."""

    invite: str | None = Field(default=None, max_length=128)


class UserOut(BaseModel):
    """A user as the API shows it."""

    id: int
    username: str
    role: str


class AuthOut(BaseModel):
    """The logged-in user and a bearer token (also set as an httpOnly cookie)."""

    user: UserOut
    token: str


class ExerciseSummary(BaseModel):
    """An exercise in the list."""

    id: str
    title: dict[str, str]
    content_hash: str
    judge_version: str  # the server's kernel (cjudge.__version__): the page compares its own
    track: str | None = None  # the catalog's track (cjudge.exercises.TRACKS), its order there
    order: int | None = None
    prerequisites: list[str] = []  # exercises to solve first
    difficulty: str | None = None  # intro, core or advanced (cjudge.exercises.DIFFICULTIES)
    chapter: list[str] = []  # the chapter's sections it comes from, by title


class ExerciseDetail(ExerciseSummary):
    """An exercise with its statement in both languages, its starter and its sample cases."""

    statement: dict[str, str]
    starter: str
    samples: list[dict[str, Any]]


class SubmissionIn(BaseModel):
    """A submission: the exercise id and the learner's file."""

    exercise: str = Field(min_length=1, max_length=64)
    code: str
    filename: str = Field(default="solution.py", pattern=r"^[A-Za-z0-9_.-]{1,60}\.py$")


class SubmissionCreated(BaseModel):
    """The answer to a new submission (202): poll it, or follow its events."""

    id: int
    status: str
    queue_position: int | None = None  # 1: next to be judged
    remaining_this_minute: int | None = None  # submissions the caller may still make this minute


class SubmissionSummary(BaseModel):
    """A submission in a history list."""

    id: int
    exercise: str
    user_id: int
    status: str
    verdict: str | None
    created_at: datetime
    finished_at: datetime | None
    content_hash: str  # the exercise's version it was judged on (see /api/exercises/{id})


class SubmissionOut(SubmissionSummary):
    """A submission in full: the verdict JSON when done, the cases graded so far before."""

    result: dict[str, Any] | None
    progress: list[dict[str, Any]]
    code: str
    filename: str
    attempts: int
    started_at: datetime | None
    queue_ms: float | None
    grading_ms: float | None
    queue_position: int | None = None  # while queued; 1: next to be judged
    worker_id: str | None = None  # admins only
    judge_log: str | None = None  # admins only
