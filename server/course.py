"""What a course needs beside the queue: display names, each submission's score (for
leaderboards), every version of each exercise the server has served, the exercises it assigns
with their deadlines, and the gradebook."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Session, col, select

from cjudge.contract.verdicts import Verdict
from cjudge.courses.results import headline
from cjudge.exercise.exercises import TRACKS

from .access import may_see
from .jobqueue import RATE_WINDOW_S
from .models import (
    DONE,
    LEARNER,
    QUEUED,
    RUNNING,
    STAFF_ROLES,
    Assignment,
    Exercise,
    Profile,
    Submission,
    SubmissionScore,
    User,
    saved_id,
    utcnow,
)
from .settings import Settings

#: verdicts from best to worst: a learner's best verdict on an exercise is the first they got
VERDICT_ORDER = (Verdict.ACCEPTED, Verdict.TOO_SLOW, Verdict.OVER_BUDGET, Verdict.WRONG_ANSWER,
                 Verdict.DEADLOCK, Verdict.TIME_LIMIT, Verdict.FORBIDDEN_PRIMITIVE,
                 Verdict.RUNTIME_ERROR, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT,
                 Verdict.COMPILE_ERROR, Verdict.JUDGE_ERROR)
ANONYMOUS = "anonymous"


def record_score(session: Session, submission: Submission) -> SubmissionScore | None:
    """Write (or rewrite, after a re-grade) the score of a finished ``submission``."""
    if submission.status != DONE or submission.verdict is None or submission.id is None:
        return None
    row = session.get(SubmissionScore, submission.id) or SubmissionScore(
        submission_id=submission.id, exercise_id=submission.exercise_id,
        user_id=submission.user_id, verdict=submission.verdict,
        content_hash=submission.content_hash, submitted_at=submission.created_at)
    row.verdict, row.content_hash = submission.verdict, submission.content_hash
    for key, value in headline(submission.result or {}).items():
        setattr(row, key, value)
    row.scored_at = utcnow()
    session.add(row)
    return row


def backfill_scores(session: Session, exercise_id: str) -> int:
    """Score the accepted submissions of ``exercise_id`` finished before scores were kept (or
    by a worker of an older version); how many."""
    scored = select(SubmissionScore.submission_id)
    missing = session.exec(
        select(Submission).where(Submission.exercise_id == exercise_id,
                                 Submission.status == DONE, Submission.verdict == Verdict.ACCEPTED,
                                 col(Submission.id).not_in(scored))).all()
    for submission in missing:
        record_score(session, submission)
    return len(missing)


def names(session: Session) -> dict[int, str | None]:
    """Each user's display name (None: anonymous)."""
    return {p.user_id: p.display_name for p in session.exec(select(Profile)).all()}


def leaderboard(session: Session, exercise_id: str, current_hash: str | None,
                viewer_id: int | None, admin: bool, limit: int = 100) -> list[dict[str, Any]]:
    """Each learner's best accepted submission, ranked by modelled time at the headline size
    (those without one after those with), then bytes sent, then time of submission. A run
    measured below its exercise's floor is never ranked."""
    rows = session.exec(select(SubmissionScore).where(
        SubmissionScore.exercise_id == exercise_id, SubmissionScore.verdict == Verdict.ACCEPTED,
        SubmissionScore.below_floor == False)).all()  # noqa: E712 - SQL, not Python

    def key(s: SubmissionScore) -> tuple[Any, ...]:
        return (s.model_time_s is None, s.model_time_s or 0.0,
                s.bytes_sent if s.bytes_sent is not None else 1 << 62,
                _aware(s.submitted_at), s.submission_id)

    best: dict[int, SubmissionScore] = {}
    for s in sorted(rows, key=key):
        best.setdefault(s.user_id, s)
    display = names(session)
    users = {u.id: u.username for u in session.exec(
        select(User).where(col(User.id).in_(list(best)))).all()} if admin else {}
    entries = []
    for rank, s in enumerate(sorted(best.values(), key=key)[:limit], 1):
        mine = s.user_id == viewer_id
        entry = {"rank": rank, "name": display.get(s.user_id) or ANONYMOUS,
                 "anonymous": display.get(s.user_id) is None, "you": mine,
                 "model_time_s": s.model_time_s, "model_size": s.model_size,
                 "bytes_sent": s.bytes_sent, "headline_case": s.headline_case,
                 "submitted_at": _aware(s.submitted_at),
                 "current_version": s.content_hash == current_hash,
                 "submission_id": s.submission_id if may_see(s.user_id, viewer_id, admin)
                 else None}
        if admin:
            entry["username"], entry["user_id"] = users.get(s.user_id), s.user_id
        entries.append(entry)
    return entries


def best_verdict(verdicts: list[str]) -> str | None:
    """The best of ``verdicts`` by ``VERDICT_ORDER`` (unknown codes last)."""
    if not verdicts:
        return None
    rank: dict[str, int] = {v: i for i, v in enumerate(VERDICT_ORDER)}
    return min(verdicts, key=lambda v: rank.get(v, len(rank)))


def progress(session: Session, user_ids: list[int] | None = None) -> dict[str, Any]:
    """Learners × exercises: best verdict, attempts (finished submissions), first accepted
    time; per exercise the solve rate and the most common failing verdicts. ``user_ids``
    limits it to those learners (a learner's own progress)."""
    exercises = session.exec(
        select(Exercise).where(Exercise.active).order_by(col(Exercise.id))).all()
    learners_q = select(User).where(User.role == LEARNER).order_by(col(User.id))
    if user_ids is not None:
        learners_q = select(User).where(col(User.id).in_(user_ids)).order_by(col(User.id))
    learners = session.exec(learners_q).all()
    ids = [u.id for u in learners]
    subs = session.exec(
        select(Submission.user_id, Submission.exercise_id, Submission.verdict,
               Submission.created_at)
        .where(Submission.status == DONE, col(Submission.user_id).in_(ids))
        .order_by(col(Submission.id))).all()
    cells: dict[tuple[int, str], dict[str, Any]] = {}
    failing: dict[str, dict[str, int]] = {}
    for user_id, exercise_id, verdict, created in subs:
        if verdict is None:  # never: a finished submission has its verdict
            continue
        cell = cells.setdefault((user_id, exercise_id), {"verdicts": [], "first_accepted": None})
        cell["verdicts"].append(verdict)
        if verdict == Verdict.ACCEPTED and cell["first_accepted"] is None:
            cell["first_accepted"] = _aware(created)
        elif verdict not in (Verdict.ACCEPTED, Verdict.JUDGE_ERROR):  # not the learner's fault
            counts = failing.setdefault(exercise_id, {})
            counts[verdict] = counts.get(verdict, 0) + 1
    display = names(session)
    rows = []
    for user in learners:
        user_id = saved_id(user)
        for ex in exercises:
            cell = cells.get((user_id, ex.id), {"verdicts": [], "first_accepted": None})
            rows.append({"user_id": user_id, "username": user.username,
                         "display_name": display.get(user_id), "exercise": ex.id,
                         "best_verdict": best_verdict(cell["verdicts"]),
                         "attempts": len(cell["verdicts"]),
                         "first_accepted_at": cell["first_accepted"]})
    summary = []
    for ex in exercises:
        tried = [r for r in rows if r["exercise"] == ex.id and r["attempts"]]
        solved = sum(r["best_verdict"] == Verdict.ACCEPTED for r in tried)
        common = sorted(failing.get(ex.id, {}).items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        summary.append({"exercise": ex.id, "title": {"en": ex.title_en, "zh": ex.title_zh},
                        "learners": len(learners), "attempted": len(tried), "solved": solved,
                        "solve_rate": round(solved / len(learners), 4) if learners else 0.0,
                        "solve_rate_of_attempted": round(solved / len(tried), 4) if tried else 0.0,
                        "common_failures": [{"verdict": v, "count": n} for v, n in common]})
    return {"exercises": summary, "rows": rows}


CSV_FIELDS = ("user_id", "username", "display_name", "exercise", "best_verdict", "attempts",
              "solved", "first_accepted_at")


def progress_csv(table: dict[str, Any]) -> str:
    """One line per learner and exercise (``CSV_FIELDS``; times in ISO 8601 UTC)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r in table["rows"]:
        first = r["first_accepted_at"]
        writer.writerow([r["user_id"], r["username"], r["display_name"] or "", r["exercise"],
                         r["best_verdict"] or "", r["attempts"],
                         int(r["best_verdict"] == Verdict.ACCEPTED),
                         first.isoformat().replace("+00:00", "Z") if first else ""])
    return out.getvalue()


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _aware_or_none(moment: datetime | None) -> datetime | None:
    return None if moment is None else _aware(moment)


def queue_position(session: Session, submission_id: int) -> int:
    """The submission's place in the queue: 1 + the queued submissions older than it (claims
    are first come, first served, except that a user with jobs running waits behind others)."""
    return 1 + session.exec(select(func.count()).select_from(Submission).where(
        Submission.status == QUEUED, col(Submission.id) < submission_id)).one()


def quota(session: Session, settings: Settings, user_id: int) -> dict[str, Any]:
    """What the user may still submit: this minute's remaining submissions (and when the next
    one frees up), and their submissions waiting or running against their bound."""
    now = utcnow()
    recent = sorted(_aware(t) for t in session.exec(
        select(Submission.created_at).where(
            Submission.user_id == user_id,
            Submission.created_at > now - timedelta(seconds=RATE_WINDOW_S))).all())
    pending = session.exec(select(func.count()).select_from(Submission).where(
        Submission.user_id == user_id, col(Submission.status).in_([QUEUED, RUNNING]))).one()
    frees_in = (RATE_WINDOW_S - (now - recent[0]).total_seconds()) if recent else 0.0
    return {"rate_per_minute": settings.rate_per_minute,
            "used_this_minute": len(recent),
            "remaining_this_minute": max(0, settings.rate_per_minute - len(recent)),
            "next_frees_in_s": round(max(0.0, frees_in), 1),
            "pending": pending, "max_pending": settings.max_queued_per_user}


def course_order(ids: list[str], catalog: dict[str, dict[str, Any]]) -> list[str]:
    """``ids`` in the course's order: the catalog's tracks in turn, each in its order; ids the
    catalog does not place last, by id."""
    tracks = {name: i for i, name in enumerate(TRACKS)}

    def key(exercise_id: str) -> tuple[int, int, str]:
        place = catalog.get(exercise_id, {})
        order = place.get("order")
        return (tracks.get(place.get("track") or "", len(tracks)),
                order if isinstance(order, int) else 1 << 30, exercise_id)
    return sorted(ids, key=key)


def assigned(session: Session, catalog: dict[str, dict[str, Any]]) -> list[tuple[str, datetime | None]]:
    """The exercises the course assigns, in its order, each with its deadline (None: none):
    those with an assignment, or every active exercise while none has one."""
    rows = {a.exercise_id: a.due for a in session.exec(select(Assignment)).all()}
    if not rows:
        rows = {e: None for e in session.exec(select(Exercise.id).where(Exercise.active)).all()}
    return [(e, _aware_or_none(rows[e])) for e in course_order(list(rows), catalog)]


def is_late(session: Session, exercise_id: str, moment: datetime) -> bool:
    """Whether a submission made at ``moment`` to ``exercise_id`` is past its deadline."""
    row = session.get(Assignment, exercise_id)
    due = _aware_or_none(row.due) if row is not None else None
    return due is not None and _aware(moment) > due


def set_deadline(session: Session, exercise_id: str, due: datetime | None) -> int:
    """Assign ``exercise_id`` with deadline ``due`` (None: none) and mark its submissions made
    after it ``late`` (the others not); how many are late."""
    due = due.astimezone(UTC) if due is not None else None
    row = session.get(Assignment, exercise_id) or Assignment(exercise_id=exercise_id)
    row.due, row.updated_at = due, utcnow()
    session.add(row)
    made = session.exec(select(Submission.id, Submission.created_at)
                        .where(Submission.exercise_id == exercise_id)).all()
    late = [i for i, at in made if due is not None and _aware(at) > due]
    session.exec(update(Submission).where(col(Submission.exercise_id) == exercise_id)
                 .values(late=col(Submission.id).in_(late) if late else False))
    return len(late)


def unassign(session: Session, exercise_id: str) -> bool:
    """Stop assigning ``exercise_id``: its deadline goes and none of its submissions is late;
    whether it was assigned."""
    row = session.get(Assignment, exercise_id)
    if row is not None:
        session.delete(row)
    session.exec(update(Submission).where(col(Submission.exercise_id) == exercise_id)
                 .values(late=False))
    return row is not None


def staff(session: Session) -> list[dict[str, Any]]:
    """The course's staff and its admin, by name."""
    display = names(session)
    return [{"username": u.username, "role": u.role, "display_name": display.get(saved_id(u))}
            for u in session.exec(select(User).where(col(User.role).in_(STAFF_ROLES))
                                  .order_by(col(User.username_key))).all()]


def gradebook_csv(session: Session, catalog: dict[str, dict[str, Any]],
                  late_policy: str = "not_counted") -> str:
    """One row per learner (``username,display_name``, then a column per assigned exercise in
    the course's order): 1 solved (accepted), 0 tried but not solved, empty not tried. An accept
    made only after the deadline is marked ``late``: "0 late" (``late_policy`` "not_counted",
    the default) or "1 late" ("counted")."""
    columns = [e for e, _ in assigned(session, catalog)]
    learners = session.exec(select(User).where(User.role == LEARNER)
                            .order_by(col(User.username_key))).all()
    cells: dict[tuple[int, str], tuple[bool, bool]] = {}  # (accepted in time, accepted late)
    tried: set[tuple[int, str]] = set()
    for user_id, exercise_id, verdict, late in session.exec(
            select(Submission.user_id, Submission.exercise_id, Submission.verdict,
                   Submission.late).where(Submission.status == DONE,
                                          col(Submission.exercise_id).in_(columns))).all():
        key = (user_id, exercise_id)
        tried.add(key)
        on_time, late_accept = cells.get(key, (False, False))
        accepted = verdict == Verdict.ACCEPTED
        cells[key] = (on_time or (accepted and not late), late_accept or (accepted and late))
    late_points = "1 late" if late_policy == "counted" else "0 late"
    display = names(session)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["username", "display_name", *columns])
    for user in learners:
        row = [user.username, display.get(saved_id(user)) or ""]
        for exercise_id in columns:
            key = (saved_id(user), exercise_id)
            on_time, late_accept = cells.get(key, (False, False))
            row.append("1" if on_time else late_points if late_accept
                       else "0" if key in tried else "")
        writer.writerow(row)
    return out.getvalue()
