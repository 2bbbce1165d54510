"""A judge worker: claims submissions from the database, grades them in sandboxes, stores the
verdict. Run embedded by the server, or standalone: ``python -m server.worker``."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import NamedTuple

from sqlalchemy import Engine
from sqlmodel import Session

from cjudge.contract.verdict_json import CaseResult, VerdictJSON
from cjudge.exercise.exercises import Exercise, load_exercises
from cjudge.grading.judge_error import judge_error_verdict
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case as simulated

from . import course, health, jobqueue, outage
from .db import make_engine, schema_ready, write_session
from .doorbell import Doorbell, announce
from .lease import LeaseKeeper
from .models import Submission
from .sandbox import SandboxError, SandboxUnavailable, WarmPool, make_pool
from .sandbox.cases import RUNTIME, SandboxCases, sandbox_cases
from .settings import Settings
from .supervisor import report_running

log = logging.getLogger("server.worker")
#: a worker whose sandboxes do not start waits this long between claims, so that healthy
#: workers (elsewhere) take the queue first; its claims still end instead of waiting forever
SICK_PAUSE_S = 2.0
#: this process's database outages, each logged once per interval (a process runs one worker)
OUTAGE = outage.OutageLog(log)
#: the longest wait between looks at the queue while the database is unavailable
DB_WAIT_MAX_S = 10.0
#: the cases so far are written for the first case at once, then at most this often (each write
#: stores every case so far; the verdict has them all)
CASES_SO_FAR_EVERY_S = 0.5
UNAVAILABLE = ("The judge cannot run submissions right now (its sandbox does not start). This "
               "is not your code's fault: please submit again later; the staff have been told.",
               "评测机现在无法运行提交（沙箱无法启动）。这不是你的代码的问题，请稍后再提交；"
               "管理员已收到通知。")


def unavailable_result(exercise: Exercise, seed: int) -> VerdictJSON:
    """The verdict JSON when no sandbox can start: ``judge_error`` with the learner's message."""
    result = judge_error_verdict(exercise.id, exercise.content_hash, RUNTIME, seed,
                                 "no sandbox can start")
    result["message"], result["message_zh"] = UNAVAILABLE
    result["unavailable"] = True
    return result


class Heartbeat:
    """Reports the worker's sandbox health to the database every ``period_s``, and at once
    when the pool's health changes (``wake``). A write that fails is logged (once per outage,
    or once per distinct error) and tried next period; ``/healthz`` names a worker whose
    reports stopped for three heartbeats."""

    def __init__(self, engine: Engine, worker_id: str, sandbox: str, period_s: float) -> None:
        self.engine, self.worker_id, self.sandbox, self.period_s = (engine, worker_id, sandbox,
                                                                    period_s)
        self.pool: WarmPool | None = None
        self.outage = outage.OutageLog(log)  # its own: the loop's reads may succeed meanwhile
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
        failure: str | None = None  # the last failed write's error, logged once
        while not self.stopping.is_set():
            try:
                self.beat()
                self.outage.recovered()
                failure = None
            except Exception as exc:  # noqa: BLE001 - try next period; /healthz names us late
                if outage.unavailable(exc):
                    self.outage.failed("writing the heartbeat", exc)
                elif str(exc) != failure:
                    log.exception("heartbeat not written (/healthz will name this worker)")
                failure = str(exc)
            self.woken.wait(self.period_s)
            self.woken.clear()


def claim_next(engine: Engine, worker_id: str, settings: Settings,
               waited_s: float | None = None) -> jobqueue.Claim | None:
    """The next job leased to ``worker_id`` (with ``waited_s``: one that waited that long), or
    None; an empty queue is seen without taking the write lock (``jobqueue.waiting``), so idle
    workers never hold up the writers."""
    with Session(engine) as session:
        if not jobqueue.waiting(session, waited_s):
            return None
    with write_session(engine) as session:
        claim = jobqueue.claim(session, worker_id, settings.lease_s, settings.max_attempts,
                               waited_s)
    if claim is not None:
        announce(settings.url, claim.id)  # committed: its streams say it runs
    return claim


def idle_waits(first_s: float, most_s: float) -> Iterator[float]:
    """A waiting worker's waits between looks at the queue (idle, or the database
    unavailable): ``first_s``, doubling up to ``most_s`` (a new iterator after each claim starts
    again from ``first_s``)."""
    wait = first_s
    while True:
        yield wait
        wait = min(most_s, wait * 2)


class Judged(NamedTuple):
    """A grading's outcome: the verdict, the judge's log, and whether the job goes back."""

    result: VerdictJSON
    log_text: str | None
    #: a sandbox failed: the job goes back, spending an attempt, while attempts are left
    retry: bool
    #: the judge's trouble, not the submission's: back in the queue, no attempt spent
    put_back: bool


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
        """Claim and grade until stopped (or until ``parent_pid`` is gone). A database that is
        locked, down or full is waited out here with growing waits, logged once per interval."""
        idle = idle_waits(self.settings.poll_s, self.settings.idle_poll_max_s)
        outage_waits = idle_waits(0.5, DB_WAIT_MAX_S)
        try:
            while not self.stopping.is_set():
                if parent_pid is not None and os.getppid() != parent_pid:
                    break
                try:
                    worked = self.turn()
                except Exception as exc:
                    if not outage.unavailable(exc):
                        raise
                    OUTAGE.failed("claiming or grading a job", exc)
                    self.stopping.wait(next(outage_waits))
                    continue
                OUTAGE.recovered()
                outage_waits = idle_waits(0.5, DB_WAIT_MAX_S)
                if not worked:
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

    def turn(self) -> bool:
        """Grade one submission if this worker may claim one; False if none was claimed. A
        worker whose sandboxes fail steps aside while another reports healthy: it takes only a
        job that waited ``stall_s`` (and puts it back, unspent, if its sandbox fails again)."""
        if not self.pool.health().failing:
            return self.step()
        return self.step(self.settings.stall_s if self._covered() else None)

    def _covered(self) -> bool:
        """Whether another worker reports sandboxes that start."""
        with Session(self.engine) as session:
            return health.healthy_peers(session, self.worker_id, self.settings.heartbeat_s) > 0

    def step(self, waited_s: float | None = None) -> bool:
        """Grade one submission if one is waiting (with ``waited_s``: one that waited that
        long); False if none was."""
        s = self.settings
        claim = claim_next(self.engine, self.worker_id, s, waited_s)
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
        """Grade ``claim`` in a sandbox while its lease is kept, then report and store the verdict."""
        runner = self.runner = sandbox_cases(exercise, claim.seed, self.pool)
        keeper = LeaseKeeper(self.engine, claim, self.settings.lease_s, runner.abort)
        on_case = self._cases_so_far_writer(claim, runner)
        started = time.monotonic()
        try:
            result, log_text, retry, put_back = self._judge(claim, exercise, runner, on_case)
        finally:
            keeper.stop()
            self.runner = None
        try:  # the verdict first: killing and reaping the sandbox takes a while
            self._report(claim, result, log_text, keeper, started, retry, put_back)
        finally:
            runner.close()

    def _cases_so_far_writer(self, claim: jobqueue.Claim,
                             runner: SandboxCases) -> Callable[[CaseResult], None]:
        """``on_case`` for ``claim``: keeps each case and writes the cases so far, now and then."""
        cases: list[CaseResult] = []
        written = [float("-inf")]  # when the cases so far were last written

        def on_case(case: CaseResult) -> None:
            """Best effort: a write the database refuses now is made by the next case's (each
            stores every case so far), or by the verdict."""
            cases.append(case)
            if time.monotonic() - written[0] < CASES_SO_FAR_EVERY_S:
                return
            try:
                with write_session(self.engine) as session:
                    kept = jobqueue.record_cases_so_far(session, claim, cases)
            except Exception as exc:
                if not outage.unavailable(exc):
                    raise
                OUTAGE.failed(f"writing submission {claim.id}'s cases so far", exc)
                return
            written[0] = time.monotonic()
            announce(self.settings.url, claim.id)
            if not kept:
                runner.abort()

        return on_case

    def _judge(self, claim: jobqueue.Claim, exercise: Exercise, runner: SandboxCases,
               on_case: Callable[[CaseResult], None]) -> Judged:
        """Run the kernel's grading of ``claim`` with its cases in ``runner``'s sandbox."""
        try:
            # the kernel's grading, exactly as practice/judge.py's, with the cases in a sandbox;
            # the reference's runs (trusted code) on the simulated runtime say where a wrong
            # answer departs from it, and the learner's code rerun in a sandbox of its own on a
            # generic draw confirms the departure, as the CLI's message does
            result = judge_code(exercise, claim.code, claim.filename, runner, RUNTIME,
                                seed=claim.seed, on_case=lambda case: on_case(case.copy()),
                                cases=runner.cases, reference=simulated, rerun=runner.rerun)
            return Judged(result, runner.log, retry=False, put_back=False)
        except SandboxError as exc:
            log_text = f"sandbox: {exc}"
            result = (unavailable_result(exercise, claim.seed)
                      if isinstance(exc, SandboxUnavailable)
                      else self._error(claim, "the sandbox failed"))
            # a sandbox that never started ran nothing of the submission's
            put_back = runner.sandbox is None and self._covered_now()
            # a sandbox's failure may pass; the judge's own bug would come back
            return Judged(result, log_text, retry=True, put_back=put_back)
        except Exception as exc:  # noqa: BLE001 - any bug here is the judge's, never the learner's
            log_text = traceback.format_exc()
            result = self._error(claim, "internal error")
            return Judged(result, log_text, retry=False, put_back=outage.unavailable(exc))

    def _covered_now(self) -> bool:
        """``_covered``, False when the database cannot say."""
        try:
            return self._covered()
        except Exception as exc:
            if not outage.unavailable(exc):
                raise
            return False

    def _report(self, claim: jobqueue.Claim, result: VerdictJSON, log_text: str | None,
                keeper: LeaseKeeper, started: float, retry: bool, put_back: bool) -> None:
        """Log the outcome and store it (or put it back, when ``retry`` or ``put_back``),
        unless the lease was lost; the store is tried again until the lease would end."""
        outcome = "put back, no attempt spent" if put_back else result["verdict"]
        log.info("submission %s: %s in %.2f s (attempt %s)", claim.id, outcome,
                 time.monotonic() - started, claim.attempts)
        if result.get("unavailable"):
            log.warning("submission %s: no sandbox can start (the pool's log says why)", claim.id)
        elif log_text:
            log.warning("submission %s: %s", claim.id, log_text)
        if keeper.lost:
            return  # another worker owns it now; nothing of ours may be written
        self._store(claim, result, log_text, retry, put_back, keeper.lease_ends())

    def _store(self, claim: jobqueue.Claim, result: VerdictJSON,
               log_text: str | None = None, retry: bool = False, put_back: bool = False,
               until: float | None = None) -> None:
        """Finish, or put back in the queue: unspent on shutdown or after the judge's own
        trouble (``put_back``), spending an attempt after a sandbox's failure (a deterministic
        judge error is stored at once: it would fail the same way again). While the database
        is unavailable the store is tried again until the monotonic ``until`` (the lease's
        end); past it the job is an orphan, claimed again first."""

        def store() -> None:
            with write_session(self.engine) as session:
                if self.stopping.is_set() or put_back:
                    jobqueue.release(session, claim, log_text, count_attempt=False)
                elif retry and claim.attempts < self.settings.max_attempts:
                    jobqueue.release(session, claim, log_text, count_attempt=True)
                elif jobqueue.finish(session, claim, result, log_text,
                                     self.settings.verdict_limit_bytes):
                    course.record_score(session, session.get_one(Submission, claim.id))
            announce(self.settings.url, claim.id)  # committed: its streams send it now

        until = time.monotonic() + self.settings.lease_s if until is None else until
        outage.persist(store, until, OUTAGE, f"storing submission {claim.id}",
                       self.stopping)

    def _error(self, claim: jobqueue.Claim, message: str) -> VerdictJSON:
        """The judge-error verdict of ``claim``, for the exercise as installed (else as it was
        when submitted)."""
        exercise = self.exercises.get(claim.exercise_id)
        if exercise is not None:
            exercise_hash = exercise.content_hash
        else:
            with Session(self.engine) as session:
                exercise_hash = session.get_one(Submission, claim.id).content_hash
        return judge_error_verdict(claim.exercise_id, exercise_hash, RUNTIME, claim.seed,
                                   message)


def wait_for_schema(settings: Settings, timeout_s: float = 120.0) -> None:
    """Wait until the server has created the tables (it runs the migrations)."""
    engine = make_engine(settings.url)
    deadline = time.monotonic() + timeout_s
    while not ready_or_unavailable(engine):
        if time.monotonic() > deadline:
            raise SystemExit("the database has no tables: start the server first (it migrates)")
        time.sleep(1.0)
    engine.dispose()


def ready_or_unavailable(engine: Engine) -> bool:
    """``schema_ready``, False while the database cannot be reached (a worker started during
    an outage waits for it instead of exiting)."""
    try:
        return schema_ready(engine)
    except Exception as exc:
        if not outage.unavailable(exc):
            raise
        return False


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
    if args.parent_pid is None:  # the embedded workers' server says it once for them
        engine = make_engine(settings.url)
        report_running(engine)
        engine.dispose()
    worker = Worker(settings, args.id or f"{socket.gethostname()}:{os.getpid()}")
    gc.freeze()  # the imports and exercises stay: no full collection scans them again
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    signal.signal(signal.SIGINT, lambda *_: worker.stop())
    worker.run(args.parent_pid)


if __name__ == "__main__":
    main()
