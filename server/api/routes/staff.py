"""What the course's staff do beside reading progress: name the staff (the admin), set
deadlines, regrade (keeping each earlier verdict) and download the gradebook."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlmodel import select

from ... import course, jobqueue
from ...db import write_session
from ...models import ADMIN, Submission, User
from ..contract import NOT_FOUND, STAFF_ONLY
from ..deps import AdminDep, EngineDep, SessionDep, StaffDep, exercise_row
from ..errors import ApiError, unknown_submission
from ..schemas import UserOut

router = APIRouter(tags=["staff"])


class RoleIn(BaseModel):
    """A user's new role: staff of the course, or a learner again."""

    role: Literal["staff", "learner"]


class StaffMember(BaseModel):
    """A member of the course's staff (or its admin)."""

    username: str
    role: str
    display_name: str | None


class DeadlineIn(BaseModel):
    """An exercise's deadline (ISO 8601 with its offset), or null for none."""

    due: datetime | None


class AssignmentOut(BaseModel):
    """An exercise the course assigns, and its deadline (null: none)."""

    exercise: str
    due: datetime | None


class DeadlineOut(AssignmentOut):
    """The deadline set, and how many of the exercise's submissions are now late."""

    late: int


class RegradeIn(BaseModel):
    """Which finished submissions to judge again (with this judge and the exercise as it is)."""

    exercise: str = Field(min_length=1, max_length=64)
    verdict: str | None = Field(default=None, max_length=32, description="only these (e.g. accepted)")


class RegradeOut(BaseModel):
    """How many submissions went back in the queue."""

    exercise: str
    queued: int


class RegradeCount(BaseModel):
    """How many submissions a regrade would put back in the queue."""

    exercise: str
    count: int


def _judged_again(request: Request) -> None:
    """Finished answers just changed (a regrade, a deadline): the caches forget them."""
    request.app.state.done_cache.clear()
    request.app.state.events_cache.clear()


@router.put("/api/admin/users/{username}/role", responses={
    403: {"description": "the admin only"}, 404: {"description": "no such user"},
    409: {"description": "the admin's own role"}})
def put_role(username: Annotated[str, Path(max_length=64)], body: RoleIn, request: Request,
             _admin: AdminDep, engine: EngineDep) -> UserOut:
    """The admin: make a user staff of the course, or a learner again."""
    with write_session(engine) as session:
        user = session.exec(select(User).where(User.username_key == username.casefold())).first()
        if user is None:
            raise ApiError(404, "unknown_user", f"no user {username!r}", f"没有用户 {username!r}")
        if user.role == ADMIN:
            raise ApiError(409, "admin_role", "the admin's role is set by the server's settings",
                           "管理员的角色由服务器设置决定")
        user.role = body.role
        session.add(user)
        out = UserOut(id=user.id or 0, username=user.username, role=user.role)
    request.app.state.caller_cache.forget(out.id)  # the new role holds at the next request
    return out


@router.get("/api/admin/staff", responses=STAFF_ONLY)
def get_staff(_staff: StaffDep, session: SessionDep) -> list[StaffMember]:
    """Staff: the course's staff and its admin, by name."""
    return [StaffMember.model_validate(m) for m in course.staff(session)]


@router.get("/api/admin/assignments", responses=STAFF_ONLY)
def get_assignments(request: Request, _staff: StaffDep,
                    session: SessionDep) -> list[AssignmentOut]:
    """Staff: the exercises the course assigns, in its order, with their deadlines (every
    exercise, without deadlines, until one is set)."""
    return [AssignmentOut(exercise=e, due=due)
            for e, due in course.assigned(session, request.app.state.catalog)]


@router.put("/api/admin/exercises/{exercise_id}/deadline", responses={**STAFF_ONLY, **NOT_FOUND})
def put_deadline(exercise_id: Annotated[str, Path(max_length=64)], body: DeadlineIn,
                 request: Request, _staff: StaffDep, engine: EngineDep) -> DeadlineOut:
    """Staff: assign the exercise with a deadline (null: none); its submissions made after it
    are ``late``, those before it not (moving it re-marks them)."""
    if body.due is not None and body.due.tzinfo is None:
        raise ApiError(422, "deadline_without_offset",
                       "give the deadline's UTC offset (e.g. 2026-12-24T23:59:00+08:00 or Z)",
                       "请给出截止时间的时区偏移（如 2026-12-24T23:59:00+08:00 或 Z）")
    with write_session(engine) as session:
        exercise = exercise_row(session, exercise_id)
        late = course.set_deadline(session, exercise.id, body.due)
    _judged_again(request)
    return DeadlineOut(exercise=exercise_id, due=body.due, late=late)


@router.delete("/api/admin/exercises/{exercise_id}/assignment", status_code=204,
               responses={**STAFF_ONLY, **NOT_FOUND})
def delete_assignment(exercise_id: Annotated[str, Path(max_length=64)], request: Request,
                      _staff: StaffDep, engine: EngineDep) -> None:
    """Staff: stop assigning the exercise (its deadline and late marks go; once none is
    assigned, the gradebook lists every exercise again). Idempotent."""
    with write_session(engine) as session:
        course.unassign(session, exercise_row(session, exercise_id).id)
    _judged_again(request)


@router.get("/api/admin/regrade/count", responses={**STAFF_ONLY, **NOT_FOUND})
def get_regrade_count(
        _staff: StaffDep, session: SessionDep,
        exercise: Annotated[str, Query(min_length=1, max_length=64)],
        verdict: Annotated[str | None, Query(max_length=32)] = None) -> RegradeCount:
    """Staff: how many finished submissions ``POST /api/admin/regrade`` would re-queue."""
    exercise_row(session, exercise)
    rows = session.exec(jobqueue.regradable(exercise, verdict)).all()
    return RegradeCount(exercise=exercise, count=len(rows))


@router.post("/api/admin/regrade", status_code=202, responses={**STAFF_ONLY, **NOT_FOUND})
def post_regrade(body: RegradeIn, request: Request, _staff: StaffDep,
                 engine: EngineDep) -> RegradeOut:
    """Staff: put an exercise's finished submissions (with ``verdict`` only, if given) back
    in the queue, to be judged again by this judge version against the exercise's current
    version; each keeps its earlier verdicts in ``history``. Leaderboards and progress follow
    as the new verdicts arrive."""
    with write_session(engine) as session:
        exercise = exercise_row(session, body.exercise)
        rows = list(session.exec(jobqueue.regradable(exercise.id, body.verdict)).all())
        queued = jobqueue.requeue(session, rows, exercise.content_hash)
    _judged_again(request)
    return RegradeOut(exercise=body.exercise, queued=queued)


@router.post("/api/admin/submissions/{submission_id}/regrade", status_code=202,
             responses={**STAFF_ONLY, **NOT_FOUND,
                        409: {"description": "not finished: it is being judged"}})
def post_submission_regrade(submission_id: Annotated[int, Path(ge=1, le=2**62)],
                            request: Request, _staff: StaffDep, engine: EngineDep) -> RegradeOut:
    """Staff: judge one finished submission again (its earlier verdict kept in
    ``history``)."""
    with write_session(engine) as session:
        row = session.get(Submission, submission_id)
        if row is None:
            raise unknown_submission(submission_id)
        exercise = exercise_row(session, row.exercise_id)
        rows = list(session.exec(jobqueue.regradable(exercise.id, None, submission_id)).all())
        if not rows:
            raise ApiError(409, "not_finished", "it is being judged; regrade it once it is done",
                           "该提交正在评测，评测完成后再重新评测")
        queued = jobqueue.requeue(session, rows, exercise.content_hash)
        exercise_id = exercise.id
    _judged_again(request)
    return RegradeOut(exercise=exercise_id, queued=queued)


@router.get("/api/admin/gradebook.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}}, **STAFF_ONLY})
def get_gradebook_csv(
        request: Request, _staff: StaffDep, session: SessionDep,
        late: Annotated[Literal["not_counted", "counted"], Query(
            description="how an accept made only after the deadline counts")] = "not_counted",
) -> Response:
    """Staff: the gradebook, one row per learner (``username,display_name``, then a column per
    assigned exercise in the course's order): 1 solved, 0 tried, empty not tried; an accept
    made only after the deadline is "0 late" (not counted, the default) or "1 late"."""
    return Response(course.gradebook_csv(session, request.app.state.catalog, late),
                    media_type="text/csv",
                    headers={"content-disposition": 'attachment; filename="gradebook.csv"'})
