"""A worker SIGKILLed in the middle of a job, with a queue of 50 behind it: its orphan is the
survivor's next job once the lease expires, not the last one (issue 41). Real worker processes
and sandboxes, the production lease (20 s)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from sqlmodel import Session, col, select
from test_queue import (  # noqa: F401 - db is a fixture
    SLOW_SOLUTION,
    db,
    row,
    two_warm_workers,
    wait_until,
)

from cjudge.exercise.exercises import load_exercises
from server import jobqueue
from server.accounts import create_user
from server.db import write_session
from server.exercise_sync import sync_exercises
from server.localserver import EXERCISES, START_S
from server.models import DONE, RUNNING, Submission


@pytest.mark.needs_sandbox
def test_a_killed_workers_job_goes_before_a_queue_of_50(db, tmp_path: Path) -> None:  # noqa: F811
    engine, settings, learner = db
    sync_exercises(engine, load_exercises(EXERCISES))
    with two_warm_workers(engine, settings, tmp_path) as (workers, logs):
        with write_session(engine) as s:
            orphan = jobqueue.enqueue(s, settings, learner.id, "ring-allreduce", "h",
                                      SLOW_SOLUTION, "solution.py").id
        wait_until(lambda: row(engine, orphan).status == RUNNING
                   and bool(row(engine, orphan).cases_so_far), START_S,
                   "a worker takes the job and reports its cases so far", logs)
        victim = row(engine, orphan).worker_id
        assert victim is not None
        workers[victim].send_signal(signal.SIGKILL)
        workers[victim].wait()
        expired_at = row(engine, orphan).lease_expires_at
        with write_session(engine) as s:
            other = create_user(s, "other", "password")
            # slow jobs (≥ 2.8 s each): a fast host cannot clear the queue within the lease
            queue = [jobqueue.enqueue(s, settings, other.id, "ring-allreduce", "h",
                                      SLOW_SOLUTION, "solution.py").id for _ in range(50)]
        wait_until(lambda: row(engine, orphan).status == DONE, settings.lease_s + START_S,
                   "the survivor finishes the orphan", logs)
        done = row(engine, orphan)
        assert expired_at is not None and done.started_at is not None
        with Session(engine) as s:
            started = [r.started_at for r in s.exec(
                select(Submission).where(col(Submission.id).in_(queue))).all()
                if r.started_at is not None]
        # once the lease expired, the survivor's next claim was the orphan
        between = [t for t in started if expired_at < t < done.started_at]
        assert between == []
        assert len(started) < 50  # the queue was still long when the orphan went first
        print(f"\nreclaimed {(done.started_at - expired_at).total_seconds():.1f} s after the "
              f"lease expired ({settings.lease_s:g} s lease); {50 - len(started)} of 50 "
              f"still queued; verdict {done.verdict}, attempt {done.attempts}")
