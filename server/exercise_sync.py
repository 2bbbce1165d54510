"""Copying what learners may see of each exercise folder into the database at start-up."""

from __future__ import annotations

from sqlalchemy import Engine, update
from sqlmodel import select

from cjudge.exercises import Exercise as KernelExercise

from .db import write_session
from .models import Exercise, utcnow


def sync_exercises(engine: Engine, exercises: dict[str, KernelExercise]) -> None:
    """Upsert every exercise; mark those whose folder is gone inactive (their history stays)."""
    with write_session(engine) as session:
        session.exec(update(Exercise).values(active=False))
        for ex in exercises.values():
            row = session.exec(select(Exercise).where(Exercise.id == ex.id)).first() or Exercise(
                id=ex.id)
            row.title_en, row.title_zh = ex.title["en"], ex.title["zh"]
            row.statement_en, row.statement_zh = ex.statement("en"), ex.statement("zh")
            row.starter = ex.starter
            row.samples = [{"name": c.name, "world_size": c.world_size, "params": c.params}
                           for c in ex.cases if c.sample]
            row.content_hash = ex.content_hash
            row.active = True
            row.synced_at = utcnow()
            session.add(row)
