"""Routes for exercises: the list and one exercise (never its reference or wrong solutions)."""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter, Request
from sqlmodel import select

from cjudge import __version__

from ...models import Exercise
from ..contract import NOT_FOUND
from ..deps import SessionDep
from ..errors import unknown_exercise
from ..schemas import ExerciseDetail, ExerciseSummary

router = APIRouter(prefix="/api/exercises", tags=["exercises"])


def _summary(row: Exercise) -> dict[str, Any]:
    return {"id": row.id, "title": {"en": row.title_en, "zh": row.title_zh},
            "content_hash": row.content_hash, "judge_version": __version__}


def _place(request: Request, exercise_id: str) -> dict[str, Any]:
    """The exercise's track, order and prerequisites in the catalog (none if not given)."""
    return cast(dict[str, Any], getattr(request.app.state, "catalog", {}).get(exercise_id, {}))


@router.get("")
def list_exercises(session: SessionDep, request: Request) -> list[ExerciseSummary]:
    """Every installed exercise, with its place in the catalog's tracks."""
    rows = session.exec(select(Exercise).where(Exercise.active).order_by(Exercise.id)).all()
    return [ExerciseSummary(**_summary(row), **_place(request, row.id)) for row in rows]


@router.get("/{exercise_id}", responses=NOT_FOUND)
def get_exercise(exercise_id: str, session: SessionDep, request: Request) -> ExerciseDetail:
    """One exercise: statement (en, zh), starter and sample cases."""
    row = session.get(Exercise, exercise_id)
    if row is None or not row.active:
        raise unknown_exercise(exercise_id)
    return ExerciseDetail(**_summary(row), **_place(request, row.id), starter=row.starter,
                          samples=row.samples, statement={"en": row.statement_en, "zh": row.statement_zh})
