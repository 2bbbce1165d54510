"""A worker whose sandboxes cannot start (its runner's interpreter is missing) beside a healthy
one: it steps aside, every submission gets its learner's verdict on its first attempt, and
health names the sick worker (issue 41). Real worker processes and sandboxes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlmodel import Session, col, select
from test_queue import db, start_worker, wait_until  # noqa: F401 - db is a fixture

from cjudge.exercise.exercises import load_exercises
from server import health, jobqueue
from server.db import write_session
from server.exercise_sync import sync_exercises
from server.localserver import EXERCISES, START_S
from server.models import DONE, Submission, WorkerStatus, utcnow

SOLUTION = (EXERCISES / "ring-allreduce/solution.py").read_text()
SUBMISSIONS = 12


@pytest.mark.needs_sandbox
def test_a_sick_worker_beside_a_healthy_one_spends_no_attempt(db, tmp_path: Path) -> None:  # noqa: F811
    engine, settings, learner = db
    sync_exercises(engine, load_exercises(EXERCISES))
    env = {**os.environ, "CJUDGE_DATA_DIR": str(settings.data_dir), "CJUDGE_POLL_S": "0.05",
           "CJUDGE_DATABASE_URL": settings.database_url or "", "CJUDGE_HEARTBEAT_S": "1",
           "CJUDGE_SANDBOX_BACKOFF_MAX_S": "1"}
    logs = [tmp_path / f"{name}.log" for name in ("sick", "well")]
    workers = {"well": start_worker(env, "well", logs[1]),
               "sick": start_worker({**env, "CJUDGE_RUNNER_PYTHON": str(tmp_path / "gone")},
                                    "sick", logs[0])}

    def reports() -> dict[str, WorkerStatus]:
        with Session(engine) as s:
            return {w.id: w for w in s.exec(select(WorkerStatus)).all()}

    try:
        wait_until(lambda: (r := reports()).keys() == {"sick", "well"} and r["sick"].failing
                   and r["well"].ready > 0, START_S, "one worker sick, the other warm", logs)
        with write_session(engine) as s:
            ids = [jobqueue.enqueue(s, settings, learner.id, "ring-allreduce", "h", SOLUTION,
                                    "solution.py").id for _ in range(SUBMISSIONS)]

        def done() -> list[Submission]:
            with Session(engine) as s:
                return list(s.exec(select(Submission).where(col(Submission.id).in_(ids),
                                                            Submission.status == DONE)).all())

        wait_until(lambda: len(done()) == SUBMISSIONS, START_S, "every submission judged", logs)
        rows = done()
        with Session(engine) as s:
            notes = health.check(s, settings.model_copy(update={"heartbeat_s": 1}),
                                 utcnow()).notes
        print(f"\n{SUBMISSIONS} submissions: "
              f"{sum(r.verdict == 'judge_error' for r in rows)} judge_error, "
              f"{sum(r.attempts for r in rows) - SUBMISSIONS} attempts beyond the first, "
              f"{sum(r.worker_id == 'sick' for r in rows)} by the sick worker; notes: {notes}")
        assert {(r.verdict, r.attempts, r.worker_id) for r in rows} == {("accepted", 1, "well")}
        assert notes and notes[0].startswith("1 of 2 workers cannot start sandboxes (sick;")
    finally:
        for proc in workers.values():
            proc.kill()
            proc.wait()
