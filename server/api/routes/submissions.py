"""Routes for submissions: create (queued, 202), read one, the caller's history."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from sqlmodel import Session, col, select
from starlette.concurrency import run_in_threadpool

from cjudge.contract.verdicts import Verdict

from ... import course, doorbell, jobqueue
from ...db import write_session
from ...models import DONE, QUEUED, Exercise, Submission, saved_id
from ..cache import DoneCache, P
from ..contract import NOT_FOUND
from ..deps import Caller, EngineDep, SessionDep, SettingsDep, UserDep
from ..errors import ApiError, rate_limited, unknown_exercise, unknown_submission
from ..schemas import (
    CaseOutline,
    EarlierVerdict,
    SubmissionCreated,
    SubmissionIn,
    SubmissionOut,
    SubmissionSummary,
    VerdictOut,
)
from .auth import client_ip

router = APIRouter(prefix="/api/submissions", tags=["submissions"])
#: a submission id as a path or query parameter: past this no row exists (and SQL integers end)
SubmissionId = Annotated[int, Path(ge=1, le=2**62, description="a submission id")]
ADMIN_ONLY = ("seed",)  # verdict fields learners do not see (the secret seed of hidden cases)


def visible(session: Session, submission_id: int, user: Caller) -> Submission:
    """The submission if ``user`` may see it (``server.access``); 404 otherwise."""
    row = session.get(Submission, submission_id)
    if row is None or not user.may_see(row.user_id):
        raise unknown_submission(submission_id)
    return row


def cached_for(cache: DoneCache[P], submission_id: int, user: Caller) -> P | None:
    """A finished submission's cached answer as ``user`` sees it, if cached and theirs to see
    (otherwise the route reads the database, and answers 404 if it is not)."""
    cached = cache.get(submission_id, user.staff)
    return cached[1] if cached is not None and user.may_see(cached[0]) else None


def present(row: Submission, user: Caller) -> SubmissionOut:
    """The submission as ``user`` may see it."""
    admin = user.staff
    result = row.result
    if result is not None and not admin:
        result = {k: v for k, v in result.items() if k not in ADMIN_ONLY}
    cases_so_far = row.cases_so_far
    if row.status == DONE and not cases_so_far and result is not None:
        cases_so_far = result.get("cases") or []  # stored once: the cases are the verdict's
    return SubmissionOut(
        **_summary(row).model_dump(), code=row.code,
        result=VerdictOut.model_validate(result) if result is not None else None,
        cases_so_far=[CaseOutline.model_validate(case) for case in cases_so_far],
        filename=row.filename, attempts=row.attempts,
        started_at=row.started_at, queue_ms=_ms(row.created_at, row.started_at),
        grading_ms=_ms(row.started_at, row.finished_at),
        worker_id=row.worker_id if admin else None, judge_log=row.judge_log if admin else None,
        history=[EarlierVerdict.model_validate(h) for h in row.history or []],
    )


@router.post("", status_code=202, responses={
    404: {"description": "unknown exercise"}, 413: {"description": "code too large"},
    422: {"description": "malformed, or the code is not UTF-8 text"},
    429: {"description": "rate or per-user bound (see Retry-After)"},
    503: {"description": "the queue is full (see Retry-After)"}})
def create_submission(body: SubmissionIn, request: Request, user: UserDep, settings: SettingsDep,
                      engine: EngineDep) -> SubmissionCreated:
    """Queue a submission for grading."""
    try:
        size = len(body.code.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: no file holds one, nor can the database
        raise ApiError(422, "code_not_text", "the code is not UTF-8 text (a lone surrogate)",
                       "代码不是 UTF-8 文本（含有孤立的代理字符）") from None
    if size > settings.max_code_bytes:
        raise ApiError(413, "too_large", f"code is {size} bytes; the limit is {settings.max_code_bytes}",
                       f"代码有 {size} 字节，超过上限 {settings.max_code_bytes} 字节")
    ip = client_ip(request)
    wait = request.app.state.limits.hit(settings.submit_rate_ip, "submit", ip)
    if wait:
        raise rate_limited(wait, "too many submissions from this address; try again later",
                           "此地址提交过于频繁，请稍后再试")
    with write_session(engine) as session:
        exercise = session.get(Exercise, body.exercise)
        if exercise is None or not exercise.active:
            raise unknown_exercise(body.exercise)
        try:
            row = jobqueue.enqueue(session, settings, user.id, exercise.id, exercise.content_hash,
                                   body.code, body.filename, ip)
            row.late = course.is_late(session, exercise.id, row.created_at)
        except jobqueue.Refused as refused:
            raise ApiError(refused.status, "rate_limited" if refused.status == 429 else "busy",
                           str(refused), "提交过多或评测队列已满，请稍后再试",
                           headers={"Retry-After": str(refused.retry_after)},
                           retry_after=refused.retry_after) from None
        quota = course.quota(session, settings, user.id)
        created = SubmissionCreated(id=saved_id(row), status=row.status,
                                    queue_position=course.queue_position(session, saved_id(row)),
                                    remaining_this_minute=quota["remaining_this_minute"])
    doorbell.ring(settings.url)  # committed: wake this machine's idle workers
    return created


@router.get("")
def list_submissions(
    user: UserDep, session: SessionDep,
    exercise: Annotated[str | None, Query(max_length=64)] = None,
    before: Annotated[int | None, Query(ge=1, le=2**62,
                                        description="only ids below this (paging)")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    everyone: Annotated[bool, Query(description="staff: every user's submissions")] = False,
    of: Annotated[int | None, Query(ge=1, le=2**62,
                                    description="staff: this user's submissions")] = None,
) -> list[SubmissionSummary]:
    """The caller's submissions, newest first (staff may ask for everyone's, or one user's)."""
    query = select(Submission)
    if user.staff and of is not None:
        query = query.where(Submission.user_id == of)
    elif not (everyone and user.staff):
        query = query.where(Submission.user_id == user.id)
    if exercise is not None:
        query = query.where(Submission.exercise_id == exercise)
    if before is not None:
        query = query.where(col(Submission.id) < before)
    rows = session.exec(query.order_by(col(Submission.id).desc()).limit(limit)).all()
    return [_summary(row) for row in rows]


@router.get("/{submission_id}", response_model=SubmissionOut, responses=NOT_FOUND)
async def get_submission(submission_id: SubmissionId, request: Request, user: UserDep,
                         engine: EngineDep) -> Response:
    """One submission: status, verdict and result when done, cases graded so far before."""
    cache: DoneCache[bytes] = request.app.state.done_cache
    cached = cached_for(cache, submission_id, user)
    if cached is not None:
        return Response(cached, media_type="application/json")

    def load() -> tuple[Submission, bytes]:
        with Session(engine) as session:
            row = visible(session, submission_id, user)
            out = present(row, user)
            if row.status == QUEUED:
                out.queue_position = course.queue_position(session, saved_id(row))
            return row, out.model_dump_json().encode()

    row, body = await run_in_threadpool(load)
    if row.status == DONE:
        cache.put(submission_id, user.staff, row.user_id, body)
    return Response(body, media_type="application/json")


def _summary(row: Submission) -> SubmissionSummary:
    return SubmissionSummary(id=saved_id(row), exercise=row.exercise_id, user_id=row.user_id,
                             status=row.status,
                             verdict=None if row.verdict is None else Verdict(row.verdict),
                             created_at=row.created_at, finished_at=row.finished_at,
                             content_hash=row.content_hash,
                             late=row.late)


def _ms(start: datetime | None, end: datetime | None) -> float | None:
    return None if start is None or end is None else round((end - start).total_seconds() * 1e3, 1)
