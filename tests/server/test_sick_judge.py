"""A judge that says when it is sick: the start-up check starts a real runner and names the fix,
pools back off and log each distinct failure once, submissions end ``judge_error`` instead of
waiting forever, and ``/healthz`` answers 503 with the reason."""

from __future__ import annotations

import logging
import re
import shutil
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import Session, select

from server import health
from server.accounts import create_user
from server.db import make_engine, migrate, write_session
from server.localserver import EXERCISES, start_server
from server.models import Exercise, Submission, WorkerStatus, utcnow
from server.sandbox import SandboxError, SandboxUnavailable, WarmPool, preflight
from server.sandbox.diagnose import explain_start_failure
from server.sandbox.launch import python_binds
from server.sandbox.pool import backoff_s, failure_key
from server.settings import Settings

SOLUTION = (EXERCISES / "ring-allreduce" / "solution.py").read_text()


class FakeSandbox:
    """Stands in for a runner: ready at once, or failing with ``error``."""

    def __init__(self, error: str | None) -> None:
        self.error = error
        self.closed = False

    def wait_ready(self) -> None:
        if self.error:
            raise SandboxError(self.error)

    def close(self) -> None:
        self.closed = True


class Factory:
    """Sandboxes that fail while ``errors`` has entries (one per start), then start."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = list(errors)
        self.starts: list[float] = []
        self.lock = threading.Lock()

    def __call__(self) -> FakeSandbox:
        with self.lock:
            self.starts.append(time.monotonic())
            return FakeSandbox(self.errors.pop(0) if self.errors else None)


def test_backoff_grows_and_is_bounded() -> None:
    delays = [backoff_s(k, 8.0) for k in range(1, 8)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_failures_that_differ_only_in_numbers_are_one_failure() -> None:
    a = "runner not ready; exit status 1; pid 4242: bwrap: execvp /x/python: No such file"
    b = "runner not ready; exit status 1; pid 977: bwrap: execvp /x/python: No such file"
    assert failure_key(a) == failure_key(b)
    assert failure_key(a) != failure_key("runner not ready: timeout")


def test_a_failing_pool_backs_off_logs_each_failure_once_then_gives_up(caplog) -> None:
    caplog.set_level(logging.INFO, "server.sandbox.pool")
    errors = ["bwrap: execvp /gone/python (pid 1): No such file or directory",
              "bwrap: execvp /gone/python (pid 2): No such file or directory",
              "runner not ready: timeout",
              "bwrap: execvp /gone/python (pid 3): No such file or directory"]
    factory = Factory(errors)
    changes: list[bool] = []
    pool = WarmPool(factory, 1, 5.0, give_up_after=3, backoff_max_s=0.8,
                    on_change=lambda: changes.append(True))
    try:
        started = time.monotonic()
        with pytest.raises(SandboxUnavailable, match="3 sandbox starts in a row failed"):
            pool.take()  # waits while the pool retries, then gives up: not forever
        assert time.monotonic() - started < 3.0
        assert pool.health().failing
        gaps = [b - a for a, b in zip(factory.starts, factory.starts[1:], strict=False)]
        assert gaps[0] >= 0.45 and gaps[1] >= 0.75  # 0.5 s, then the 0.8 s bound
        deadline = time.monotonic() + 5
        while pool.health().failing and time.monotonic() < deadline:
            time.sleep(0.05)
        sandbox = pool.take()  # the fifth start succeeds: healthy again
        assert isinstance(sandbox, FakeSandbox) and sandbox.error is None
        assert pool.health().failed_starts == 0 and pool.health().last_error is None
    finally:
        pool.close()
    failures = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failures) == 2, failures  # two distinct failures among four failed starts
    assert "execvp /gone/python" in failures[0] and "timeout" in failures[1]
    assert any("start again after 4 failed starts" in r.getMessage() for r in caplog.records)
    assert len(changes) >= 3  # first failure, giving up, healthy again


def test_a_healthy_pool_hands_out_sandboxes() -> None:
    pool = WarmPool(Factory([]), 2, 5.0)
    try:
        assert pool.take().error is None and pool.take().error is None
    finally:
        pool.close()


def test_the_fix_is_named_for_an_interpreter_the_sandbox_cannot_see(tmp_path: Path) -> None:
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    fix = explain_start_failure(f"bwrap: execvp {python}: No such file or directory",
                                str(python), True)
    assert f"cannot see {python}" in fix and "CJUDGE_RUNNER_PYTHON" in fix
    assert "does not exist" in explain_start_failure("x", "/no/such/python", True)
    assert "'torch'" in explain_start_failure("No module named 'torch'", sys.executable, True)
    assert "READY_TIMEOUT" in explain_start_failure("runner not ready: timeout", sys.executable,
                                                    True)


def test_a_symlinked_venv_is_bound_where_its_link_points_and_where_it_is_used(
        tmp_path: Path) -> None:
    link = tmp_path / "venv-link"
    link.symlink_to(Path(sys.prefix).resolve())
    binds = python_binds(str(link / "bin" / "python"))
    assert (Path(sys.prefix).resolve(), link) in binds


@pytest.mark.needs_sandbox
def test_the_start_up_check_starts_a_runner_and_names_the_fix(tmp_path: Path) -> None:
    assert preflight(Settings(sandbox="bwrap"))[0] == []
    wrapper = tmp_path / "runner" / "bin" / "python"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.exit(3)'\n")
    wrapper.chmod(0o755)
    problems = preflight(Settings(sandbox="bwrap", runner_python=str(wrapper)))[0]
    assert len(problems) == 1 and "a sandbox runner did not start" in problems[0]
    assert "exit status 3" in problems[0] and "Fix:" in problems[0]


def ran_in_a_sandbox(result: dict) -> bool:
    """Whether a runner took the submission (whatever the kernel then made of it)."""
    return result["status"] == "done" and not (result["result"] or {}).get("unavailable")


def _wrapper(folder: Path) -> Path:
    """An interpreter at ``folder/bin/python`` that runs this one (so it can be taken away)."""
    wrapper = folder / "bin" / "python"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


@pytest.mark.needs_sandbox
def test_a_sandbox_broken_after_start_is_reported_and_ends_submissions(tmp_path: Path) -> None:
    """The interpreter disappears after start: /healthz goes 503 within seconds, a queued
    submission ends judge_error with the learner's message, the log says it once."""
    wrapper = _wrapper(tmp_path / "runner")
    exercises = tmp_path / "exercises"  # the seed exercise alone (others may be half-written)
    shutil.copytree(EXERCISES / "ring-allreduce", exercises / "ring-allreduce")
    # each sandbox an interpreter of its own: a fork server started before the interpreter
    # went away would go on forking sandboxes
    server = start_server(tmp_path / "data", workers=1, pool_size=1, runner_python=wrapper,
                          exercises_dir=exercises, sandbox_fork=False,
                          sandbox_backoff_max_s=2, heartbeat_s=1, stall_s=600)
    try:
        token = server.register()
        with server.client() as c:
            deadline = time.monotonic() + 60
            while not [w for w in c.get("/healthz").json()["reporting_workers"] if w["ready"]]:
                assert time.monotonic() < deadline, "the worker's runner did not warm up"
                time.sleep(0.2)
            assert c.get("/healthz").status_code == 200
        wrapper.unlink()  # runners started from now on fail; the warm one still works
        broken = time.monotonic()
        server.wait(token, server.submit(token, SOLUTION))  # takes the warm runner
        with server.client() as c:
            deadline = time.monotonic() + 30
            while (health := c.get("/healthz")).status_code != 503:
                assert time.monotonic() < deadline, health.json()
                time.sleep(0.2)
        took_503 = time.monotonic() - broken
        body = health.json()
        assert body["status"] == "degraded" and "no sandbox can start" in body["reasons"][0]
        assert str(wrapper) in body["reasons"][0]
        queued = time.monotonic()
        result = server.wait(token, server.submit(token, SOLUTION), timeout_s=30)
        took_verdict = time.monotonic() - queued
        assert result["verdict"] == "judge_error" and not ran_in_a_sandbox(result)
        assert "cannot run submissions right now" in result["result"]["message"]
        assert "无法运行提交" in result["result"]["message_zh"]
        time.sleep(3)  # more failed starts, backing off
        log = server.log()
        failure_lines = [line for line in log.splitlines()
                         if "could not start a sandbox" in line]
        assert len(failure_lines) == 1, failure_lines
        print(f"\n503 after {took_503:.1f} s; judge_error after {took_verdict:.1f} s; "
              f"{len(failure_lines)} failure line(s) in {len(log.splitlines())} log lines")
        _wrapper(tmp_path / "runner2").rename(wrapper)  # mended: health comes back
        with server.client() as c:
            deadline = time.monotonic() + 30
            while c.get("/healthz").status_code != 200:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert ran_in_a_sandbox(server.wait(token, server.submit(token, SOLUTION)))
    finally:
        server.stop()


def test_health_names_a_stalled_queue_and_sick_workers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'judge.db'}"
    migrate(url)
    engine = make_engine(url)
    settings = Settings(stall_s=60, heartbeat_s=5)
    long_ago = utcnow() - timedelta(minutes=10)
    with write_session(engine) as s:
        s.add(Exercise(id="ring-allreduce", title_en="", title_zh="", statement_en="",
                       statement_zh="", starter="", content_hash="h"))
        uid = create_user(s, "stall_learner", "correct horse battery staple").id
    with write_session(engine) as s:
        assert health.check(s, settings, long_ago).ok  # an empty queue is well
        s.add(Submission(user_id=uid, exercise_id="ring-allreduce", content_hash="h", code="x",
                         seed=1, created_at=long_ago))
    with Session(engine) as s:
        stalled = health.check(s, settings, long_ago)
        assert not stalled.ok
        assert re.match(r"no worker has claimed a queued job for 60\d s", stalled.reasons[0])
        assert health.check(s, settings, utcnow()).ok  # the server just started: not yet
    with write_session(engine) as s:  # a worker claimed another job a moment ago: busy, not stuck
        s.add(Submission(user_id=uid, exercise_id="ring-allreduce", content_hash="h", code="y",
                         seed=2, status="running", started_at=utcnow() - timedelta(seconds=5)))
    with Session(engine) as s:
        assert health.check(s, settings, long_ago).ok
    with write_session(engine) as s:
        health.report(s, "w1", "bwrap", 3, True, "bwrap: execvp /x/python: No such file", 0)
        health.report(s, "w2", "bwrap", 0, False, None, 2)
    with Session(engine) as s:
        assert health.check(s, settings, long_ago).ok  # one healthy worker is enough
    with write_session(engine) as s:
        health.report(s, "w2", "bwrap", 4, True, "runner not ready: timeout", 0)
    with Session(engine) as s:
        sick = health.check(s, settings, long_ago)
    assert len(sick.reasons) == 1 and "no sandbox can start: every worker (2)" in sick.reasons[0]
    assert "execvp /x/python" in sick.reasons[0] and "timeout" in sick.reasons[0]
    with write_session(engine) as s:  # reports go stale: gone workers are not counted
        for w in s.exec(select(WorkerStatus)).all():
            w.seen_at = long_ago
            s.add(w)
    with Session(engine) as s:
        assert health.check(s, settings, long_ago).ok
    engine.dispose()
