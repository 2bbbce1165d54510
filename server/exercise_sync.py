"""Copying what learners may see of each exercise folder into the database at start-up."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Engine, func, update
from sqlmodel import Session, col, select

from cjudge.exercise.exercises import Exercise as KernelExercise

from .db import write_session
from .models import Exercise, ExerciseVersion, Submission, utcnow

log = logging.getLogger("server.exercises")


def sync_exercises(engine: Engine, exercises: dict[str, KernelExercise]) -> None:
    """Upsert every exercise; mark those whose folder is gone inactive (their history stays).
    A new or changed exercise gets a version row (its statements as served), so the content
    hash each submission stores keeps naming what its learner was asked."""
    with write_session(engine) as session:
        _record_versions(session, exercises)
        session.exec(update(Exercise).values(active=False))
        for ex in exercises.values():
            fields: dict[str, Any] = {
                "title_en": ex.title["en"], "title_zh": ex.title["zh"],
                "statement_en": ex.statement("en"), "statement_zh": ex.statement("zh"),
                "starter": ex.starter,
                "samples": [{"name": c.name, "world_size": c.world_size, "params": c.params}
                            for c in ex.cases if c.sample],
                "content_hash": ex.content_hash, "active": True, "synced_at": utcnow()}
            row = session.exec(select(Exercise).where(col(Exercise.id) == ex.id)).first()
            if row is None:
                row = Exercise(id=ex.id, **fields)
            else:
                row.sqlmodel_update(fields)
            session.add(row)


def _record_versions(session: Session, exercises: dict[str, KernelExercise]) -> None:
    """A version row for each exercise whose content hash the server has not served yet."""
    for ex in exercises.values():
        if session.get(ExerciseVersion, (ex.id, ex.content_hash)) is not None:
            continue
        old = session.get(Exercise, ex.id)
        session.add(ExerciseVersion(exercise_id=ex.id, content_hash=ex.content_hash,
                                    title_en=ex.title["en"], title_zh=ex.title["zh"],
                                    statement_en=ex.statement("en"),
                                    statement_zh=ex.statement("zh")))
        if old is None:
            log.info("exercise %s: new (version %s)", ex.id, ex.content_hash)
            continue
        earlier = session.exec(select(func.count()).select_from(Submission)
                               .where(Submission.exercise_id == ex.id)).one()
        log.warning("exercise %s changed: version %s -> %s; its %d earlier submissions keep "
                    "the version they were judged on", ex.id, old.content_hash,
                    ex.content_hash, earlier)
