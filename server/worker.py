"""A judge worker: claims submissions from the database, grades them in sandboxes, stores the
verdict. Run embedded by the server, or standalone: ``python -m server.worker``."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from cjudge.exercises import Exercise, load_exercises
from cjudge.judge import judge_code
from cjudge.judge_error import judge_error_verdict

from . import course, health, jobqueue
from .db import make_engine, schema_ready, write_session
from .doorbell import Doorbell
from .lease import LeaseKeeper
from .models import Submission
from .sandbox import SandboxError, SandboxUnavailable, WarmPool, make_pool
from .sandbox.cases import RUNTIME, SandboxCases, sandbox_cases
from .settings import Settings

log = logging.getLogger("server.worker")
#: a worker whose sandboxes do not start waits this long between claims, so that healthy
#: workers (elsewhere) take the queue first; its claims still end instead of waiting forever
SICK_PAUSE_S = 2.0
#: the cases so far are written for the first case at once, then at most this often (each write
#: stores every case so far; the verdict has them all)
CASES_SO_FAR_EVERY_S = 0.5
UNAVAILABLE = ("The judge cannot run submissions right now (its sandbox does not start). This "
               "is not your code's fault: please submit again later; the staff have been told.",
               "评测机现在无法运行提交（沙箱无法启动）。这不是你的代码的问题，请稍后再提交；"
               "管理员已收到通知。")


def unavailable_result(exercise: Exercise, seed: int) -> dict[str, Any]:
    """The verdict JSON when no sandbox can start: ``judge_error`` with the learner's message."""
    result = judge_error_verdict(exercise.id, exercise.content_hash, RUNTIME, seed,
                                 "no sandbox can start")
    result["message"], result["message_zh"] = UNAVAILABLE
    result["unavailable"] = True
    return dict(result)


class Heartbeat:
    """Reports the worker's sandbox health to the database every ``period_s``, and at once
    when the pool's health changes (``wake``)."""

    def __init__(self, engine: Engine, worker_id: str, sandbox: str, period_s: float) -> None:
        self.engine, self.worker_id, self.sandbox, self.period_s = (engine, worker_id, sandbox,
                                                                    period_s)
        self.pool: WarmPool | None = None
        self.woken = threading.Event()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def start(self, pool: WarmPool) -> None:
        """Start reporting ``pool``'s health."""
        self.pool = pool
        self.thread.start()

    def wake(self) -> None:
        """Report now (the pool's health changed)."""
        self.woken.set()

    def stop(self) -> None:
        """Stop reporting and remove this worker's report."""
        self.stopping.set()
        self.woken.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        try:
            with write_session(self.engine) as session:
                health.forget(session, self.worker_id)
        except Exception:  # noqa: BLE001 - a report left behind goes stale by itself
            pass

    def beat(self) -> None:
        """Write one report."""
        assert self.pool is not None
        h = self.pool.health()
        with write_session(self.engine) as session:
            health.report(session, self.worker_id, self.sandbox, h.failed_starts, h.failing,
                          h.last_error, h.ready)

    def _run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.beat()
            except Exception as exc:  # noqa: BLE001 - a database hiccup: try next period
                log.debug("heartbeat not written: %s", exc)
            self.woken.wait(self.period_s)
            self.woken.clear()


def claim_next(engine: Engine, worker_id: str, settings: Settings) -> jobqueue.Claim | None:
    """The next job leased to ``worker_id``, or None; an empty queue is seen without taking the
    write lock (``jobqueue.waiting``), so idle workers never hold up the writers."""
    with Session(engine) as session:
        if not jobqueue.waiting(session):
            return None
    with write_session(engine) as session:
        return jobqueue.claim(session, worker_id, settings.lease_s, settings.max_attempts)


def idle_waits(first_s: float, most_s: float) -> Iterator[float]:
    """An idle worker's waits between looks at the queue: ``first_s``, doubling up to
    ``most_s`` (a new iterator after each claim starts again from ``first_s``)."""
    wait = first_s
    while True:
        yield wait
        wait = min(most_s, wait * 2)


class Worker:
    """One worker process's loop: one submission at a time, with a warm pool of sandboxes."""

    def __init__(self, settings: Settings, worker_id: str) -> None:
        self.settings = settings
        self.worker_id = worker_id
        self.engine = make_engine(settings.url)
        self.exercises: dict[str, Exercise] = load_exercises(settings.exercises_dir)
        self.heartbeat = Heartbeat(self.engine, worker_id, settings.sandbox, settings.heartbeat_s)
        self.pool = make_pool(settings, on_change=self.heartbeat.wake)
        self.heartbeat.start(self.pool)
        self.stopping = threading.Event()
        self.runner: SandboxCases | None = None
        #: rung by the API when it queues a job: an idle worker waits long, but not for a job
        self.bell = Doorbell(settings.url, f"{os.getpid()}-{threading.get_ident()}")

    def stop(self) -> None:
        """Stop after (aborting) the current submission; it goes back to the queue."""
        self.stopping.set()
        self.bell.ring()
        if self.runner is not None:
            self.runner.abort()

    def run(self, parent_pid: int | None = None) -> None:
        """Claim and grade until stopped (or until ``parent_pid`` is gone)."""
        idle = idle_waits(self.settings.poll_s, self.settings.idle_poll_max_s)
        try:
            while not self.stopping.is_set():
                if parent_pid is not None and os.getppid() != parent_pid:
                    break
                if not self.step():
                    if self.bell.wait(next(idle)):  # a job was queued: look from the start
                        idle = idle_waits(self.settings.poll_s, self.settings.idle_poll_max_s)
                    continue
                idle = idle_waits(self.settings.poll_s, self.settings.idle_poll_max_s)
                if self.pool.health().failing:
                    self.stopping.wait(SICK_PAUSE_S)
        finally:
            self.bell.close()
            self.heartbeat.stop()
            self.pool.close()

    def step(self) -> bool:
        """Grade one submission if one is waiting; False if the queue was empty."""
        s = self.settings
        claim = claim_next(self.engine, self.worker_id, s)
        if claim is None:
            return False
        exercise = self.exercises.get(claim.exercise_id)
        if claim.attempts > s.max_attempts:
            self._store(claim, self._error(claim, f"gave up after {s.max_attempts} attempts"))
        elif exercise is None:
            self._store(claim, self._error(claim, "this exercise is not installed on the worker"))
        else:
            self._grade(claim, exercise)
        return True

    def _grade(self, claim: jobqueue.Claim, exercise: Exercise) -> None:
        runner = self.runner = sandbox_cases(exercise, claim.seed, self.pool)
        keeper = LeaseKeeper(self.engine, claim, self.settings.lease_s, runner.abort)
        cases: list[dict[str, Any]] = []
        written = [float("-inf")]  # when the cases so far were last written

        def on_case(case: dict[str, Any]) -> None:
            cases.append(case)
            if time.monotonic() - written[0] < CASES_SO_FAR_EVERY_S:
                return
            written[0] = time.monotonic()
            with write_session(self.engine) as session:
                if not jobqueue.record_cases_so_far(session, claim, cases):
                    runner.abort()

        log_text = None
        retry = False  # a sandbox's failure may pass; the judge's own bug would come back
        started = time.monotonic()
        try:
            # the kernel's grading, exactly as practice/judge.py's, with the cases in a sandbox
            result = dict(judge_code(exercise, claim.code, claim.filename, runner, RUNTIME,
                                     seed=claim.seed, on_case=lambda case: on_case(dict(case)),
                                     cases=runner.cases))
            log_text = runner.log
        except SandboxUnavailable as exc:
            log_text = f"sandbox: {exc}"
            result, retry = unavailable_result(exercise, claim.seed), True
        except SandboxError as exc:
            log_text = f"sandbox: {exc}"
            result, retry = self._error(claim, "the sandbox failed"), True
        except Exception:  # noqa: BLE001 - any bug here is the judge's, never the learner's
            log_text = traceback.format_exc()
            result = self._error(claim, "internal error")
        finally:
            keeper.stop()
            self.runner = None
        try:  # the verdict first: killing and reaping the sandbox takes a while
            self._report(claim, result, log_text, keeper.lost, started, retry)
        finally:
            runner.close()

    def _report(self, claim: jobqueue.Claim, result: dict[str, Any], log_text: str | None,
                lost: bool, started: float, retry: bool) -> None:
        """Log the outcome and store it (or put it back, when ``retry``), unless the lease was
        lost."""
        log.info("submission %s: %s in %.2f s (attempt %s)", claim.id, result["verdict"],
                 time.monotonic() - started, claim.attempts)
        if result.get("unavailable"):
            log.warning("submission %s: no sandbox can start (the pool's log says why)", claim.id)
        elif log_text:
            log.warning("submission %s: %s", claim.id, log_text)
        if lost:
            return  # another worker owns it now; nothing of ours may be written
        self._store(claim, result, log_text, retry)

    def _store(self, claim: jobqueue.Claim, result: dict[str, Any],
               log_text: str | None = None, retry: bool = False) -> None:
        """Finish, or put back in the queue: on shutdown, or after a sandbox's failure (a
        deterministic judge error is stored at once: it would fail the same way again)."""
        with write_session(self.engine) as session:
            if self.stopping.is_set():
                jobqueue.release(session, claim, log_text, count_attempt=False)
            elif retry and claim.attempts < self.settings.max_attempts:
                jobqueue.release(session, claim, log_text, count_attempt=True)
            elif jobqueue.finish(session, claim, result, log_text,
                                 self.settings.verdict_limit_bytes):
                course.record_score(session, session.get_one(Submission, claim.id))

    def _error(self, claim: jobqueue.Claim, message: str) -> dict[str, Any]:
        """The judge-error verdict of ``claim``, for the exercise as installed (else as it was
        when submitted)."""
        exercise = self.exercises.get(claim.exercise_id)
        if exercise is not None:
            exercise_hash = exercise.content_hash
        else:
            with Session(self.engine) as session:
                exercise_hash = session.get_one(Submission, claim.id).content_hash
        return dict(judge_error_verdict(claim.exercise_id, exercise_hash, RUNTIME, claim.seed,
                                        message))


def wait_for_schema(settings: Settings, timeout_s: float = 120.0) -> None:
    """Wait until the server has created the tables (it runs the migrations)."""
    engine = make_engine(settings.url)
    deadline = time.monotonic() + timeout_s
    while not schema_ready(engine):
        if time.monotonic() > deadline:
            raise SystemExit("the database has no tables: start the server first (it migrates)")
        time.sleep(1.0)
    engine.dispose()


def main(argv: list[str] | None = None) -> None:
    """``python -m server.worker``: one worker against ``CJUDGE_DATABASE_URL`` or the data dir."""
    parser = argparse.ArgumentParser(prog="python -m server.worker", description=__doc__)
    parser.add_argument("--id", help="worker id (default: host:pid)")
    parser.add_argument("--parent-pid", type=int, help="exit when this process is gone")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    settings = Settings()
    if settings.sandbox == "none":
        log.warning("NO SANDBOX: submissions run unisolated; for a single trusted user only")
    wait_for_schema(settings)
    worker = Worker(settings, args.id or f"{socket.gethostname()}:{os.getpid()}")
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    signal.signal(signal.SIGINT, lambda *_: worker.stop())
    worker.run(args.parent_pid)


if __name__ == "__main__":
    main()
