"""Running a course on the judge: leaderboards, display names, progress (a learner's own, and
staff's table with its CSV export), quotas and exercise versions; ``install`` adds them and
``/healthz`` to the app."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from cjudge.contract.verdicts import Verdict

from ... import course, names
from ...accounts import display_name_refusal
from ...db import write_session
from ...models import DONE, ExerciseVersion, Profile, Submission, SubmissionScore, utcnow
from ..contract import NOT_FOUND, STAFF_ONLY
from ..deps import EngineDep, SessionDep, SettingsDep, StaffDep, UserDep, exercise_row
from ..errors import ApiError
from . import health, staff

router = APIRouter(tags=["course"])


class ProfileIn(BaseModel):
    """A display name for leaderboards (2 to 32 letters, digits, spaces, '.', '-', '_' of one
    script), or null to stay anonymous."""

    display_name: str | None = Field(default=None, max_length=64)


class ProfileOut(BaseModel):
    """How the caller appears on leaderboards."""

    display_name: str | None
    anonymous: bool


class LeaderboardEntry(BaseModel):
    """A learner's best accepted submission, ranked."""

    rank: int
    name: str  # the display name, or "anonymous"
    anonymous: bool
    you: bool
    model_time_s: float | None  # modelled time at the headline size, when modelled
    model_size: int | None
    bytes_sent: int | None  # by the busiest rank of the largest case
    headline_case: str | None
    submitted_at: datetime
    current_version: bool  # judged on the exercise as it is now
    submission_id: int | None  # yours, or staff's view
    user_id: int | None = None  # staff only: whose it is (their submissions open from it)
    username: str | None = None  # staff only


class LeaderboardOut(BaseModel):
    """An exercise's leaderboard and what it is ranked by."""

    exercise: str
    title: dict[str, str]
    ranked_by: list[str]
    entries: list[LeaderboardEntry]


class VersionOut(BaseModel):
    """A version of an exercise the server has served, with its statements."""

    content_hash: str
    first_served_at: datetime
    current: bool
    title: dict[str, str]
    statement: dict[str, str]


class ProgressOut(BaseModel):
    """A learner's standing on one exercise."""

    exercise: str
    best_verdict: Verdict | None
    attempts: int
    first_accepted_at: datetime | None


class StaffProgressRow(ProgressOut):
    """A learner × exercise cell of the staff's table."""

    user_id: int
    username: str
    display_name: str | None


class VerdictCount(BaseModel):
    """How often a verdict was an exercise's learners' best."""

    verdict: Verdict
    count: int


class ExerciseProgress(BaseModel):
    """An exercise's solve rates and most common failures."""

    exercise: str
    title: dict[str, str]
    learners: int
    attempted: int
    solved: int
    solve_rate: float
    solve_rate_of_attempted: float
    common_failures: list[VerdictCount]


class StaffProgressOut(BaseModel):
    """Learners × exercises, and per exercise its rates."""

    exercises: list[ExerciseProgress]
    rows: list[StaffProgressRow]


class QuotaOut(BaseModel):
    """What the caller may still submit now."""

    rate_per_minute: int
    used_this_minute: int
    remaining_this_minute: int
    next_frees_in_s: float
    pending: int
    max_pending: int


@router.get("/api/exercises/{exercise_id}/leaderboard", responses=NOT_FOUND)
def get_leaderboard(exercise_id: str, user: UserDep, engine: EngineDep,
                    limit: Annotated[int, Query(ge=1, le=500)] = 100) -> LeaderboardOut:
    """Each learner's best accepted submission: ranked by modelled time at the exercise's
    headline size when the verdicts carry a cost model, then bytes sent by the busiest rank of
    the largest case, then time of submission. Names are display names or "anonymous"."""
    with Session(engine) as session:
        exercise = exercise_row(session, exercise_id)
        scored = select(SubmissionScore.submission_id)
        missing = session.exec(select(Submission.id).where(
            Submission.exercise_id == exercise_id, Submission.verdict == "accepted",
            Submission.status == DONE, col(Submission.id).not_in(scored)).limit(1)).first()
    if missing is not None:  # accepted before scores were kept: score them once
        with write_session(engine) as session:
            course.backfill_scores(session, exercise_id)
    with Session(engine) as session:
        entries = course.leaderboard(session, exercise_id, exercise.content_hash, user.id,
                                     user.staff, limit)
    modelled = any(e["model_time_s"] is not None for e in entries)
    return LeaderboardOut.model_validate(
        {"exercise": exercise_id, "title": {"en": exercise.title_en, "zh": exercise.title_zh},
         "ranked_by": ["model_time_s", "bytes_sent", "submitted_at"] if modelled
         else ["bytes_sent", "submitted_at"], "entries": entries})


@router.get("/api/exercises/{exercise_id}/versions", responses=NOT_FOUND)
def get_versions(exercise_id: str, user: UserDep, session: SessionDep) -> list[VersionOut]:
    """Every version of the exercise the server has served, newest first, with its
    statements: a submission's ``content_hash`` names the one it was judged on."""
    exercise = exercise_row(session, exercise_id)
    rows = session.exec(select(ExerciseVersion).where(ExerciseVersion.exercise_id == exercise_id)
                        .order_by(col(ExerciseVersion.first_served_at).desc())).all()
    return [VersionOut(content_hash=v.content_hash,
                       first_served_at=course._aware(v.first_served_at),
                       current=v.content_hash == exercise.content_hash,
                       title={"en": v.title_en, "zh": v.title_zh},
                       statement={"en": v.statement_en, "zh": v.statement_zh}) for v in rows]


@router.get("/api/me/profile")
def get_profile(user: UserDep, session: SessionDep) -> ProfileOut:
    """The caller's display name (null: anonymous, the default)."""
    row = session.get(Profile, user.id)
    name = row.display_name if row else None
    return ProfileOut(display_name=name, anonymous=name is None)


@router.put("/api/me/profile", responses={409: {"description": "name taken"},
                                          422: {"description": "not a valid name"}})
def put_profile(body: ProfileIn, user: UserDep, engine: EngineDep,
                settings: SettingsDep) -> ProfileOut:
    """Choose a display name for leaderboards (``server.names``: NFKC, one script, not like a
    staff name or another learner's), or null to be anonymous."""
    name = names.normalise(body.display_name) if body.display_name else None
    try:
        with write_session(engine) as session:
            refusal = (display_name_refusal(session, settings, user.id, name)
                       if name is not None else None)
            if refusal is not None:
                raise ApiError(refusal.status, refusal.code, refusal.detail, refusal.message_zh)
            row = session.get(Profile, user.id) or Profile(user_id=user.id)
            row.display_name, row.display_key = name, names.key(name) if name else None
            row.updated_at = utcnow()
            session.add(row)
    except IntegrityError:
        raise ApiError(names.LOOKALIKE.status, names.LOOKALIKE.code, names.LOOKALIKE.detail,
                       names.LOOKALIKE.message_zh) from None
    return ProfileOut(display_name=name, anonymous=name is None)


@router.get("/api/me/progress")
def get_my_progress(user: UserDep, session: SessionDep) -> list[ProgressOut]:
    """The caller's progress on every exercise: best verdict, attempts, first accepted."""
    return [ProgressOut.model_validate(r) for r in course.progress(session, [user.id])["rows"]]


@router.get("/api/me/quota")
def get_quota(user: UserDep, session: SessionDep, settings: SettingsDep) -> QuotaOut:
    """What the caller may still submit now: this minute's remaining submissions, and their
    submissions waiting or running against the per-user bound."""
    return QuotaOut.model_validate(course.quota(session, settings, user.id))


@router.get("/api/admin/progress", responses=STAFF_ONLY)
def get_progress(_staff: StaffDep, session: SessionDep) -> StaffProgressOut:
    """Staff: learners × exercises (best verdict, attempts, first accepted time) and per
    exercise the solve rate and the most common failing verdicts."""
    return StaffProgressOut.model_validate(course.progress(session))


@router.get("/api/admin/progress.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}}, **STAFF_ONLY})
def get_progress_csv(_staff: StaffDep, session: SessionDep) -> Response:
    """Staff: the progress table as CSV, one line per learner and exercise."""
    return Response(course.progress_csv(course.progress(session)), media_type="text/csv",
                    headers={"content-disposition": 'attachment; filename="progress.csv"'})


def install(app: FastAPI) -> None:
    """Add the course routes to ``app``."""
    app.include_router(health.router)
    app.include_router(router)
    app.include_router(staff.router)
