"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cjudge.verdicts import Verdict


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


class CaseOutline(BaseModel):
    """A graded case of the verdict JSON (DESIGN's "Verdict JSON"; more fields as the kernel
    writes them: ``trace``, ``timeline``, ``details``, ``sample``, ``smallest``)."""

    model_config = ConfigDict(extra="allow")

    name: str
    verdict: Verdict
    world_size: int | None = None
    message: str | None = None
    message_zh: str | None = None
    bytes_sent: list[int] = []  # per rank
    bytes_bound: int | None = None
    messages_sent: list[int] = []  # per rank
    wall_ms: float | None = None
    model: dict[str, Any] | None = None  # topology, modelled sizes and times, bound, floor


class VerdictOut(BaseModel):
    """The verdict JSON of a finished submission, as the CLI's ``--json`` and the browser's
    (admins also see its ``seed``: the hidden cases' inputs follow from it)."""

    model_config = ConfigDict(extra="allow")

    verdict: Verdict
    exercise: str | None = None
    message: str | None = None
    message_zh: str | None = None
    runtime: str | None = None
    cases: list[CaseOutline] = []
    skipped: list[str] = []  # cases not run after the first failure
    stdout: str = ""
    judge_version: str | None = None
    exercise_hash: str | None = None


class SubmissionOut(SubmissionSummary):
    """A submission in full: the verdict JSON when done, the cases graded so far before."""

    result: VerdictOut | None
    progress: list[CaseOutline]
    code: str
    filename: str
    attempts: int
    started_at: datetime | None
    queue_ms: float | None
    grading_ms: float | None
    queue_position: int | None = None  # while queued; 1: next to be judged
    worker_id: str | None = None  # admins only
    judge_log: str | None = None  # admins only


class ValidationIssue(BaseModel):
    """One reason a request was malformed (never the input itself)."""

    loc: list[str | int]
    msg: str
    type: str


class ErrorOut(BaseModel):
    """Every error answer: ``detail`` in English (a sentence, or a 422's issues), ``message_zh``
    in Chinese, a stable ``code``; some codes add fields (``retry_after``, ``feedback``,
    ``request_id``)."""

    model_config = ConfigDict(extra="allow")

    detail: str | list[ValidationIssue]
    code: str | None = None
    message_zh: str | None = None
    retry_after: int | None = None
    feedback: str | None = None
    request_id: str | None = None
