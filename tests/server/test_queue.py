"""The database queue: leases, re-claims, exactly one verdict, bounded retries, fairness bounds;
and two real worker processes, one of them SIGKILLed in the middle of a job."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from postgres import new_database
from sqlalchemy import update
from sqlmodel import Session, col, select

from cjudge import __version__
from cjudge.exercise.exercises import load_exercises
from server import jobqueue, worker
from server.accounts import create_user
from server.db import make_engine, migrate, write_session
from server.exercise_sync import sync_exercises
from server.localserver import EXERCISES, REPO, START_S
from server.models import DONE, QUEUED, RUNNING, Exercise, Submission, WorkerStatus, utcnow
from server.sandbox import SandboxError
from server.settings import Settings

RESULT = {"verdict": "accepted", "cases": [{"name": "a", "verdict": "accepted"}]}


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path, postgres_server: str | None):
    """A migrated database (SQLite, then PostgreSQL where installed) with one exercise and
    one user; (engine, settings, user)."""
    url = None
    if request.param == "postgres":
        if postgres_server is None:
            pytest.skip("PostgreSQL is not installed here")
        url = new_database(postgres_server)
    settings = Settings(data_dir=tmp_path, database_url=url, rate_per_minute=1000,
                        max_queued_per_user=1000)
    migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as s:
        s.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="", statement_zh="",
                       starter="", content_hash="h"))
        user = create_user(s, "learner", "password")
        s.expunge(user)
    yield engine, settings, user
    engine.dispose()


def enqueue(db, n: int = 1) -> list[int]:
    engine, settings, user = db
    with write_session(engine) as s:
        return [jobqueue.enqueue(s, settings, user.id, "ex", "h", "code", "a.py").id
                for _ in range(n)]


def claim(engine, worker: str = "w", lease_s: float = 30, max_attempts: int = 3):
    with write_session(engine) as s:
        return jobqueue.claim(s, worker, lease_s, max_attempts)


def row(engine, sid: int) -> Submission:
    with Session(engine) as s:
        return s.get(Submission, sid)


def ready_workers(engine) -> set[str]:
    """The workers whose last heartbeat reported a warm sandbox."""
    with Session(engine) as s:
        return {w.id for w in s.exec(select(WorkerStatus).where(col(WorkerStatus.ready) > 0))}


def expire(engine, sid: int) -> None:
    with write_session(engine) as s:
        s.exec(update(Submission).where(Submission.id == sid)
               .values(lease_expires_at=utcnow() - timedelta(hours=1)))


def test_claims_in_order_and_each_once(db) -> None:
    engine = db[0]
    first, second = enqueue(db, 2)
    assert claim(engine).id == first
    assert claim(engine).id == second
    assert claim(engine) is None


def test_an_idle_worker_looks_without_the_write_lock_and_backs_off(db) -> None:
    engine, settings = db[0], db[1]

    def waiting() -> bool:
        with Session(engine) as s:  # a read session: no write lock
            return jobqueue.waiting(s)

    assert not waiting() and worker.claim_next(engine, "w", settings) is None
    (sid,) = enqueue(db)
    assert waiting()
    assert worker.claim_next(engine, "w", settings).id == sid
    assert not waiting()  # running on a live lease
    expire(engine, sid)
    assert waiting()  # its worker died: claimable again
    waits = worker.idle_waits(0.05, 0.2)
    assert [next(waits) for _ in range(5)] == [0.05, 0.1, 0.2, 0.2, 0.2]


def test_a_verdict_is_written_once_and_only_by_the_lease_holder(db) -> None:
    engine = db[0]
    (sid,) = enqueue(db)
    mine = claim(engine)
    with write_session(engine) as s:
        assert jobqueue.finish(s, mine, RESULT, None)
    with write_session(engine) as s:
        assert not jobqueue.finish(s, mine, {**RESULT, "verdict": "wrong_answer"}, None)
    assert row(engine, sid).verdict == "accepted" and row(engine, sid).status == DONE


def test_an_expired_lease_is_claimed_again_and_the_old_holder_is_ignored(db) -> None:
    engine = db[0]
    (sid,) = enqueue(db)
    dead = claim(engine, "dead")
    assert claim(engine, "other") is None  # the lease still holds
    expire(engine, sid)
    alive = claim(engine, "alive")
    assert (alive.id, alive.attempts) == (sid, 2)
    with write_session(engine) as s:
        assert not jobqueue.renew(s, dead, 30)
        assert not jobqueue.record_cases_so_far(s, dead, [{"name": "x"}])
        assert not jobqueue.finish(s, dead, RESULT, None)
        assert jobqueue.renew(s, alive, 30)
        assert jobqueue.finish(s, alive, RESULT, None)
    assert row(engine, sid).worker_id == "alive"


def test_judge_errors_are_retried_a_bounded_number_of_times(db) -> None:
    engine = db[0]
    (sid,) = enqueue(db)
    for attempt in (1, 2, 3):
        c = claim(engine)
        assert c.attempts == attempt
        with write_session(engine) as s:
            jobqueue.release(s, c, "boom", count_attempt=True)
        assert row(engine, sid).status == QUEUED
    c = claim(engine)
    assert c.attempts == 4  # past max_attempts=3: the worker records judge_error, no new try


def graded_by_a_worker_failing_with(db, failure: Exception, monkeypatch,
                                    installed: bool = True) -> Submission:
    """One submission through a worker whose grading raises ``failure`` (a worker without a
    sandbox pool: grading is replaced), with the exercise ``installed`` on it or not; the
    submission's row afterwards."""
    engine, settings, _ = db
    (sid,) = enqueue(db)
    judge = worker.Worker.__new__(worker.Worker)
    judge.settings, judge.engine, judge.worker_id, judge.runner = settings, engine, "w", None
    judge.exercises = {"ex": load_exercises(EXERCISES)["ring-allreduce"]} if installed else {}
    judge.pool, judge.stopping = None, threading.Event()

    def fail(*args, **kwargs):
        raise failure

    monkeypatch.setattr(worker, "judge_code", fail)
    assert judge.step()
    return row(engine, sid)


def test_a_deterministic_judge_error_is_stored_once_with_the_judges_version(db,
                                                                            monkeypatch) -> None:
    done = graded_by_a_worker_failing_with(db, KeyError("a grader's bug"), monkeypatch)
    assert (done.status, done.verdict, done.attempts) == (DONE, "judge_error", 1)
    assert done.result["judge_version"] == __version__
    assert done.result["exercise_hash"] == load_exercises(EXERCISES)["ring-allreduce"].content_hash
    assert "KeyError: \"a grader's bug\"" in done.judge_log


def test_a_submission_of_an_exercise_gone_names_the_hash_it_was_submitted_for(db,
                                                                            monkeypatch) -> None:
    done = graded_by_a_worker_failing_with(db, KeyError("never graded"), monkeypatch,
                                           installed=False)
    assert (done.status, done.verdict) == (DONE, "judge_error")
    assert done.result["exercise_hash"] == "h" and done.result["judge_version"] == __version__
    assert "not installed" in done.result["message"]


def test_a_sandbox_failure_is_tried_again(db, monkeypatch) -> None:
    again = graded_by_a_worker_failing_with(db, SandboxError("runner died"), monkeypatch)
    assert (again.status, again.attempts) == (QUEUED, 1)
    assert again.judge_log == "sandbox: runner died"


def test_release_on_shutdown_does_not_count_an_attempt(db) -> None:
    engine = db[0]
    (sid,) = enqueue(db)
    c = claim(engine)
    with write_session(engine) as s:
        jobqueue.release(s, c, None, count_attempt=False)
    assert row(engine, sid).attempts == 0
    assert claim(engine).attempts == 1


@pytest.mark.parametrize(("bounds", "status", "after"), [
    ({"rate_per_minute": 2}, 429, 2),
    ({"max_queued_per_user": 2}, 429, 2),
    ({"max_queued_total": 2}, 503, 2),
])
def test_bounds_refuse_without_writing(db, bounds: dict, status: int, after: int) -> None:
    engine, settings, user = db
    settings = settings.model_copy(update=bounds)
    with write_session(engine) as s:
        for _ in range(after):
            jobqueue.enqueue(s, settings, user.id, "ex", "h", "code", "a.py")
    with pytest.raises(jobqueue.Refused) as refused, write_session(engine) as s:
        jobqueue.enqueue(s, settings, user.id, "ex", "h", "code", "a.py")
    assert refused.value.status == status and refused.value.retry_after >= 1
    with Session(engine) as s:
        assert jobqueue.counts(s)[QUEUED] == after


SLOW_SOLUTION = (EXERCISES / "ring-allreduce/solution.py").read_text().replace(
    "    rank, n = dist.get_rank(), dist.get_world_size()",
    "    import time\n    time.sleep(0.4)\n    rank, n = dist.get_rank(), dist.get_world_size()")


def start_worker(settings_env: dict, name: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "server.worker", "--id", name], cwd=REPO,
                            env=settings_env, stdout=subprocess.DEVNULL, stderr=log.open("wb"))


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str,
               logs: list[Path]) -> None:
    """Poll ``condition`` until it holds; past ``timeout_s`` (a bound for a hang, not a
    measurement) fail saying ``what`` with the tail of the workers' logs."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            tails = [f"{log.name}: {log.read_text(errors='replace')[-2000:]}" for log in logs]
            pytest.fail("\n".join([f"not seen: {what}", *tails]))
        time.sleep(0.1)


@contextlib.contextmanager
def two_warm_workers(engine, settings: Settings,
                     tmp_path: Path) -> Iterator[tuple[dict[str, subprocess.Popen], list[Path]]]:
    """Worker processes ``w1`` and ``w2`` on ``settings``' database, each with a warm sandbox
    (their logs in ``tmp_path``); killed on the way out."""
    env = {**os.environ, "CJUDGE_DATA_DIR": str(settings.data_dir), "CJUDGE_POLL_S": "0.05",
           "CJUDGE_LEASE_S": str(settings.lease_s), "CJUDGE_DATABASE_URL": settings.database_url or ""}
    logs = [tmp_path / f"{name}.log" for name in ("w1", "w2")]
    workers = {log.stem: start_worker(env, log.stem, log) for log in logs}
    try:
        wait_until(lambda: ready_workers(engine) == {"w1", "w2"}, START_S,
                   "both workers warm a sandbox", logs)
        yield workers, logs
    finally:
        for proc in workers.values():
            proc.kill()
            proc.wait()


@pytest.mark.needs_sandbox
def test_sigkilled_worker_mid_job_still_gives_exactly_one_verdict(db, tmp_path: Path) -> None:
    """The production lease (20 s), not a shortened one: a shorter lease is lost whenever a
    loaded machine delays a renewal past it, and each loss is one more attempt."""
    engine, settings, user = db
    sync_exercises(engine, load_exercises(EXERCISES))
    with two_warm_workers(engine, settings, tmp_path) as (workers, logs):
        with write_session(engine) as s:
            sid = jobqueue.enqueue(s, settings, user.id, "ring-allreduce", "h", SLOW_SOLUTION,
                                   "solution.py").id
        wait_until(lambda: row(engine, sid).status == RUNNING and bool(row(engine, sid).cases_so_far),
                   START_S, "a worker takes the job and reports its cases so far", logs)
        victim = row(engine, sid).worker_id
        workers[victim].send_signal(signal.SIGKILL)
        workers[victim].wait()
        wait_until(lambda: row(engine, sid).status == DONE, settings.lease_s + START_S,
                   "the other worker finishes the job once the lease lapses", logs)
        done = row(engine, sid)
        survivor = ({"w1", "w2"} - {victim}).pop()
        assert (done.verdict, done.attempts, done.worker_id) == ("accepted", 2, survivor)
        assert len(done.result["cases"]) == 7 and done.cases_so_far == []  # the cases stored once
