"""The judge keeps grading when its own parts fail (issue 41): a sick worker steps aside for a
healthy one without spending attempts, a write stall longer than the busy timeout never becomes
a learner's judge_error, orphans are claimed first, a database outage is waited out by workers
and answered 503 with Retry-After by the API, and /healthz says which part is failing."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select
from test_queue import claim, db, enqueue, expire, row  # noqa: F401 - db is a fixture

from cjudge.exercise.exercises import load_exercises
from server import db as server_db
from server import health, jobqueue, outage, supervisor, worker
from server.accounts import create_user
from server.api import errors
from server.api.app import create_app
from server.db import make_engine, write_session
from server.localserver import EXERCISES
from server.models import DONE, QUEUED, Exercise, Submission, WorkerStatus, utcnow
from server.sandbox import PoolHealth, SandboxUnavailable
from server.settings import Settings

ACCEPTED = {"verdict": "accepted", "cases": [{"name": "a", "verdict": "accepted"}]}


def locked(what: str = "database is locked") -> OperationalError:
    """What SQLAlchemy raises when SQLite's busy timeout ran out (or its disk is full)."""
    return OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError(what))


class FakePool:
    """A warm pool whose sandboxes start, or fail to (``failing``)."""

    def __init__(self, failing: bool) -> None:
        self.failing = failing

    def health(self) -> PoolHealth:
        return PoolHealth(3 if self.failing else 0, self.failing,
                          "bwrap: setting up uid map: Permission denied" if self.failing else None,
                          0 if self.failing else 1)

    def take(self) -> object:
        if self.failing:
            raise SandboxUnavailable("3 sandbox starts in a row failed")
        return object()


class FakeRunner:
    """A submission's cases: the sandbox is taken from the pool when the kernel runs them."""

    def __init__(self, pool: FakePool) -> None:
        self.pool, self.sandbox, self.cases, self.log = pool, None, [], None

    def take(self) -> None:
        self.sandbox = self.pool.take()

    def rerun(self, job: Any, spec: Any) -> None:
        """Never called: no case here is a wrong answer to confirm."""

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass


def grades(on_each_case: Any = None) -> Any:
    """A ``judge_code`` that takes a sandbox, reports three cases and accepts."""

    def judge_code(exercise, code, filename, runner, runtime, seed, on_case, cases, reference,
                   rerun):
        runner.take()
        for name in "abc":
            if on_each_case is not None:
                on_each_case()
            on_case({"name": name, "verdict": "accepted"})
        return ACCEPTED

    return judge_code


def a_worker(engine, settings: Settings, worker_id: str, pool: FakePool) -> worker.Worker:
    """A worker with ``pool`` for sandboxes and the seed exercise as ``ex``."""
    judge = worker.Worker.__new__(worker.Worker)
    judge.settings, judge.engine, judge.worker_id, judge.runner = settings, engine, worker_id, None
    judge.exercises = {"ex": load_exercises(EXERCISES)["ring-allreduce"]}
    judge.pool, judge.stopping = pool, threading.Event()  # type: ignore[assignment]
    return judge


def report(engine, worker_id: str, pool: FakePool) -> None:
    h = pool.health()
    with write_session(engine) as s:
        health.report(s, worker_id, "bwrap", h.failed_starts, h.failing, h.last_error, h.ready)


@pytest.fixture()
def fake_sandboxes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "sandbox_cases", lambda exercise, seed, pool: FakeRunner(pool))
    monkeypatch.setattr(worker, "judge_code", grades())


def test_database_unavailable_is_told_apart_from_a_bug() -> None:
    assert outage.unavailable(locked()) and outage.unavailable(locked("database or disk is full"))
    assert not outage.unavailable(locked("no such table: submission"))
    assert not outage.unavailable(IntegrityError("INSERT", {}, sqlite3.IntegrityError("unique")))
    assert outage.reason(locked()) == "database is locked"


def test_an_outage_is_logged_once_per_interval_and_its_end_once(caplog) -> None:
    now = [0.0]
    log = outage.OutageLog(logging.getLogger("test.outage"), every_s=30, clock=lambda: now[0])
    caplog.set_level(logging.WARNING, "test.outage")
    for _ in range(100):  # 100 failures in 10 s
        log.failed("claiming", locked())
        now[0] += 0.1
    now[0] = 31.0
    log.failed("claiming", locked())
    log.recovered()
    log.recovered()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3, lines
    assert "99 more failures" in lines[1] and "available again" in lines[2]


def test_a_sick_worker_steps_aside_for_a_healthy_one_and_spends_no_attempt(
        db, fake_sandboxes) -> None:  # noqa: F811
    """50 submissions, a worker whose sandboxes cannot start beside a healthy one, taking turns:
    every submission accepted on its first attempt; the sick worker claims only a job that
    waited ``stall_s``, and puts it back unspent."""
    engine, settings, _ = db
    settings = settings.model_copy(update={"stall_s": 600})
    sick_pool, well_pool = FakePool(failing=True), FakePool(failing=False)
    sick = a_worker(engine, settings, "sick", sick_pool)
    well = a_worker(engine, settings, "well", well_pool)
    report(engine, "sick", sick_pool)
    report(engine, "well", well_pool)
    ids = enqueue(db, 50)
    claimed_by_sick = 0
    for _ in range(60):
        claimed_by_sick += sick.turn()
        well.turn()
    with Session(engine) as s:
        rows = s.exec(select(Submission).where(col(Submission.id).in_(ids))).all()
        notes = health.check(s, settings, utcnow()).notes
    assert claimed_by_sick == 0
    assert [(r.status, r.verdict, r.attempts) for r in rows] == [(DONE, "accepted", 1)] * 50
    assert notes and notes[0].startswith("1 of 2 workers cannot start sandboxes (sick;")
    (late,) = enqueue(db)
    with write_session(engine) as s:  # it waited past stall_s: the sick worker may take it
        s.exec(update(Submission).where(col(Submission.id) == late)
               .values(created_at=utcnow() - timedelta(seconds=601)))
    assert sick.turn()
    again = row(engine, late)
    assert (again.status, again.attempts) == (QUEUED, 0)  # put back unspent
    assert "3 sandbox starts in a row failed" in (again.judge_log or "")


def test_a_write_stall_longer_than_the_busy_timeout_keeps_the_learners_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_sandboxes) -> None:
    """Another connection holds SQLite's write lock for 3 s from the first case on, past the
    busy timeout (shortened to 0.2 s, as 30 s stands to a 33 s stall): the progress writes fail
    and are skipped, the verdict's store waits the stall out."""
    monkeypatch.setattr(server_db, "SQLITE_BUSY_MS", 200)
    settings = Settings(data_dir=tmp_path, rate_per_minute=1000)
    server_db.migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as s:
        s.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="", statement_zh="",
                       starter="", content_hash="h"))
        user = create_user(s, "learner", "password")
        sid = jobqueue.enqueue(s, settings, user.id, "ex", "h", "code", "a.py").id
    holding = threading.Event()

    def hold_the_lock() -> None:
        lock = sqlite3.connect(tmp_path / "judge.db", isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        holding.set()
        time.sleep(3.0)
        lock.execute("ROLLBACK")
        lock.close()

    holder = threading.Thread(target=hold_the_lock)

    def stall_once() -> None:
        if not holder.is_alive() and not holding.is_set():
            holder.start()
            holding.wait()

    monkeypatch.setattr(worker, "judge_code", grades(stall_once))
    assert a_worker(engine, settings, "w", FakePool(failing=False)).step()
    holder.join()
    done = row(engine, sid)
    assert (done.status, done.verdict, done.attempts) == (DONE, "accepted", 1)
    engine.dispose()


def test_an_orphan_is_claimed_first_and_is_nobodys_running_job(db) -> None:  # noqa: F811
    engine, settings, learner = db
    (orphan,) = enqueue(db)
    assert claim(engine, "dead").id == orphan
    with write_session(engine) as s:
        other = create_user(s, "other", "password")
        queue = [jobqueue.enqueue(s, settings, other.id, "ex", "h", "code", "a.py").id
                 for _ in range(10)]
    expire(engine, orphan)
    assert claim(engine, "alive").id == orphan  # before the ten queued earlier than its expiry
    # the orphan expires again; while it is not claimable (too young for ``waited_s``), it
    # is not its user's running job: the learner served longer ago goes before the other
    (mine,) = enqueue(db)
    long_ago = utcnow() - timedelta(minutes=10)
    with write_session(engine) as s:
        s.exec(update(Submission).where(col(Submission.id).in_([mine, *queue]))
               .values(created_at=long_ago))
        s.exec(update(Submission).where(col(Submission.id) == orphan)
               .values(started_at=long_ago, lease_expires_at=utcnow() - timedelta(seconds=1)))
        s.exec(update(Submission).where(col(Submission.id) == queue[0])
               .values(status=DONE, started_at=utcnow()))
    with write_session(engine) as s:
        assert jobqueue.claim(s, "w", 30, 3, waited_s=60).id == mine


class Stopping(threading.Event):
    """A stop event whose waits return at once, recording how long they would have been."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout or 0.0)
        return self.is_set()


class Quiet:
    """The doorbell, heartbeat and pool a worker closes when it stops."""

    def wait(self, timeout: float) -> bool:
        return False

    def close(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def health(self) -> PoolHealth:
        return PoolHealth(0, False, None, 1)


def test_a_worker_waits_a_database_outage_out_and_logs_it_once(
        monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    """A crash loop wrote 1632 lines in a 10 s outage: the loop now backs off and logs once."""
    judge = worker.Worker.__new__(worker.Worker)
    judge.settings = Settings()
    judge.stopping = stop = Stopping()
    judge.bell = judge.heartbeat = judge.pool = Quiet()  # type: ignore[assignment]
    looks = []

    def claim_in_an_outage() -> bool:
        looks.append(1)
        if len(looks) == 30:
            stop.set()
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("server is down"))

    monkeypatch.setattr(judge, "turn", claim_in_an_outage)
    monkeypatch.setattr(worker, "OUTAGE", outage.OutageLog(worker.log))
    caplog.set_level(logging.WARNING, "server.worker")
    judge.run()  # returns when stopped: the outage never ends the loop
    assert len(looks) == 30
    assert stop.waits[:7] == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert len(caplog.records) == 1, [r.getMessage() for r in caplog.records]


def app_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                    allowed_hosts="testserver")


def test_the_api_answers_503_with_retry_after_when_the_database_is_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    def full(*args: Any, **kwargs: Any) -> Any:
        raise locked("database or disk is full")

    caplog.set_level(logging.WARNING, "server.api")
    monkeypatch.setattr(errors, "OUTAGE", outage.OutageLog(errors.log))
    with TestClient(create_app(app_settings(tmp_path), embedded_workers=False)) as c:
        token = c.post("/api/auth/register", json={"username": "learner",
                                                   "password": "correct horse battery"})
        assert token.status_code == 201, token.text
        monkeypatch.setattr(jobqueue, "enqueue", full)
        answers = [c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "x"})
                   for _ in range(5)]
    assert {a.status_code for a in answers} == {503}
    body = answers[0].json()
    assert body["code"] == "database_unavailable" and answers[0].headers["Retry-After"] == "5"
    assert "数据库" in body["message_zh"]
    lines = [r.getMessage() for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(lines) == 1, lines


def test_health_is_503_with_the_reason_when_the_database_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = app_settings(tmp_path)
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        assert c.get("/healthz").status_code == 200
        lock = sqlite3.connect(settings.data_dir / "judge.db", isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
        try:
            stalled = c.get("/healthz")
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert stalled.status_code == 503
        assert stalled.json()["reasons"] == ["the database cannot be written: database is locked"]

        def down(*args: Any) -> Any:
            raise locked("unable to open database file")

        monkeypatch.setattr(jobqueue, "counts", down)
        gone = c.get("/healthz")
    assert gone.status_code == 503
    assert gone.json()["reasons"] == ["the database cannot be read: unable to open database file"]


def test_health_degrades_when_expected_workers_stop_reporting(db) -> None:  # noqa: F811
    engine, settings, _ = db
    started = utcnow() - timedelta(seconds=health.START_GRACE_S + 1)
    with Session(engine) as s:
        assert health.check(s, settings, started).ok  # no workers expected (they run elsewhere)
        never = health.check(s, settings, started, expected_workers=2)
        assert health.check(s, settings, utcnow() - timedelta(seconds=20),
                            expected_workers=2).ok  # still starting
    assert never.reasons and never.reasons[0].startswith("no worker has reported for 6")
    assert never.reasons[0].endswith("(3 heartbeats are 15 s; 2 expected)")
    with write_session(engine) as s:
        health.report(s, "w", "bwrap", 0, False, None, 1)
    with Session(engine) as s:
        assert health.check(s, settings, started, expected_workers=2).ok
    with write_session(engine) as s:  # silent for 21 s: gone (three heartbeats and 5 s)
        s.exec(update(WorkerStatus).values(seen_at=utcnow() - timedelta(seconds=21)))
    with Session(engine) as s:
        silent = health.check(s, settings, started, expected_workers=2)
    assert silent.reasons and silent.reasons[0].startswith("no worker has reported for 2")


def test_workers_that_die_young_are_restarted_after_growing_delays() -> None:
    """A crash loop restarted a worker (reloading torch) every 2 s through an outage."""
    delays, last = [], 0.0
    for _ in range(8):
        last = supervisor.restart_delay(last, lived_s=1.0)
        delays.append(last)
    assert delays == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]
    assert supervisor.restart_delay(60.0, lived_s=600.0) == 2.0  # it ran well: start over


def test_the_start_up_names_the_jobs_found_running(db, caplog) -> None:  # noqa: F811
    engine = db[0]
    (sid,) = enqueue(db)
    claim(engine, "gone-with-the-last-run")
    caplog.set_level(logging.WARNING, "server.supervisor")
    supervisor.report_running(engine)
    (line,) = [r.getMessage() for r in caplog.records]
    assert f"found submission {sid} running on worker gone-with-the-last-run" in line
    assert "claimed again before new work" in line


def test_a_full_database_answers_503_and_a_full_disk_degrades_health(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    """SQLite full for real (its pages capped where they are: SQLITE_FULL, as on a full disk);
    the disk itself is checked apart, by its free space."""
    monkeypatch.setattr(errors, "OUTAGE", outage.OutageLog(errors.log))
    caplog.set_level(logging.WARNING, "server.api")
    settings = app_settings(tmp_path)
    with TestClient(create_app(settings, embedded_workers=False)) as c:
        assert c.post("/api/auth/register", json={
            "username": "learner", "password": "correct horse battery"}).status_code == 201
        engine = c.app.state.engine  # type: ignore[attr-defined]

        @event.listens_for(engine, "connect")
        def full(dbapi_conn: Any, _record: Any) -> None:
            pages = dbapi_conn.execute("PRAGMA page_count").fetchone()[0]
            dbapi_conn.execute(f"PRAGMA max_page_count = {pages}")

        engine.dispose()  # every connection from now on is full
        answer = c.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                  "code": "x = 1\n" * 4000})
    assert answer.status_code == 503 and answer.json()["code"] == "database_unavailable"
    assert answer.headers["Retry-After"] == str(outage.RETRY_AFTER_S)
    assert any("database or disk is full" in r.getMessage() for r in caplog.records)
    assert health.disk_problem(tmp_path) is None
    full_disk = health.disk_problem(tmp_path, low_bytes=1 << 62)
    assert full_disk is not None and full_disk.startswith("the data directory's disk is full (")
