"""The diagnosis's rerun on the server (``SandboxCases.rerun``): the learner's code run again on
one generic draw in a sandbox of its own from the pool, closed once it answered, killed by an
abort; a rerun that fails leaves a stop (the diagnosis unconfirmed), never an exception, and
never a case of the submission."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case as simulated
from server.sandbox import Sandbox, SandboxUnavailable, WarmPool, make_pool
from server.sandbox.cases import RUNTIME, SandboxCases, sandbox_cases
from server.settings import Settings
from tests.mistakes.corpus import HERE, exercise_of

CASE = {"name": "sample", "world_size": 2, "sample": True, "params": {}, "inputs": []}
JOB = {"time_limit_s": 5.0}
SENDS_FROM_THE_RESULT = HERE / "alltoall_p2p" / "sends_from_the_result.py"


class FakeSandbox:
    """Answers its one case, or ends without answering (``stop``, or once killed)."""

    def __init__(self, stop: str | None = None) -> None:
        self.stop = stop
        self.sent: list[dict[str, Any]] = []
        self.killed = self.closed = False
        self.on_case: Callable[[], None] = lambda: None  # what happens while it runs

    def send(self, job: dict[str, Any], cases: list[dict[str, Any]]) -> None:
        self.sent += cases

    def next_raw(self, due: float) -> dict[str, Any] | None:
        self.on_case()
        if self.stop is not None or self.killed:
            self.stop = self.stop or "killed"
            return None
        ranks = [{"rank": r, "state": "returned", "output": None, "error": None} for r in (0, 1)]
        return {"name": self.sent[0]["name"], "ranks": ranks, "events": [], "stdout": "",
                "stop": None, "wall_ms": 1.0}

    def oom_kills(self) -> int:
        return 0

    def kill(self) -> None:
        self.killed = True

    def close(self) -> None:
        self.closed = True

    def log(self) -> str:
        return "the runner stopped"


class FakePool:
    """Hands out ``sandboxes`` in turn (an exception in their place is raised)."""

    def __init__(self, *sandboxes: FakeSandbox | Exception) -> None:
        self.sandboxes = list(sandboxes)

    def take(self) -> FakeSandbox:
        sandbox = self.sandboxes.pop(0)
        if isinstance(sandbox, Exception):
            raise sandbox
        return sandbox


def runner_of(*sandboxes: FakeSandbox | Exception) -> SandboxCases:
    """A runner over the one case ``CASE``, its sandboxes from a fake pool."""
    return SandboxCases(FakePool(*sandboxes), [CASE])  # type: ignore[arg-type, list-item]


def test_a_rerun_runs_in_a_sandbox_of_its_own_closed_once_it_answered() -> None:
    own, extra = FakeSandbox(), FakeSandbox()
    runner = runner_of(own, extra)
    runner(JOB, CASE)  # type: ignore[arg-type]
    drawn = {**CASE, "inputs": [[1.5], [2.5]], "sample": False}
    raw = runner.rerun(JOB, drawn)  # type: ignore[arg-type]
    assert raw["stop"] is None and extra.sent == [drawn] and extra.closed
    assert own.sent == [CASE] and not own.closed and runner.cases == [CASE]
    assert runner.extra is None and runner.log is None


@pytest.mark.parametrize("extra", [FakeSandbox(stop="killed"), FakeSandbox(stop="tampered"),
                                   FakeSandbox(stop="time_limit"),
                                   SandboxUnavailable("3 sandbox starts in a row failed")])
def test_a_rerun_that_did_not_finish_reports_a_stop(extra: FakeSandbox | Exception) -> None:
    """Whatever ended it (killed, the channel tampered with, a limit, no sandbox at all), the
    diagnosis gets a stop (it leaves the message unconfirmed) and no exception."""
    runner = runner_of(extra)
    assert runner.rerun(JOB, CASE)["stop"] is not None  # type: ignore[arg-type]
    assert not isinstance(extra, FakeSandbox) or extra.closed
    assert runner.log is None  # the submission's own cases stopped nowhere


def test_an_abort_kills_the_reruns_sandbox_too() -> None:
    own, extra = FakeSandbox(), FakeSandbox()
    runner = runner_of(own, extra)
    runner(JOB, CASE)  # type: ignore[arg-type]
    extra.on_case = runner.abort  # the lease is lost while the rerun runs
    assert runner.rerun(JOB, CASE)["stop"] is not None  # type: ignore[arg-type]
    assert own.killed and extra.killed and extra.closed


def test_an_aborted_runner_takes_no_sandbox_for_a_rerun() -> None:
    runner = runner_of()  # a take would fail: the pool has no sandbox
    runner.abort()
    assert runner.rerun(JOB, CASE)["stop"] is not None  # type: ignore[arg-type]


class Spy:
    """A real pool's sandboxes, each recorded when taken and when closed."""

    def __init__(self, pool: WarmPool) -> None:
        self.pool = pool
        self.taken: list[Sandbox] = []
        self.closed: list[Sandbox] = []

    def take(self) -> Sandbox:
        sandbox = self.pool.take()
        close = sandbox.close

        def closing() -> None:
            self.closed.append(sandbox)
            close()

        sandbox.close = closing  # type: ignore[method-assign]
        self.taken.append(sandbox)
        return sandbox


@pytest.mark.needs_sandbox
def test_a_real_rerun_confirms_in_its_own_sandbox_closed_before_the_verdict() -> None:
    """Graded as the worker grades: the submission's sandbox and one more for the generic
    draw; the rerun's is closed when the diagnosis has its answer, and the message is the one
    the generic draw confirms (the unwritten 0, not a coincidental piece of the input)."""
    ex = exercise_of(SENDS_FROM_THE_RESULT)
    pool = make_pool(Settings(sandbox="bwrap", pool_size=1))
    spy = Spy(pool)
    try:
        runner = sandbox_cases(ex, 1, pool)
        runner.pool = spy  # type: ignore[assignment]
        code = SENDS_FROM_THE_RESULT.read_text(encoding="utf-8")
        result = judge_code(ex, code, SENDS_FROM_THE_RESULT.name, runner, RUNTIME, seed=1,
                            cases=runner.cases, reference=simulated, rerun=runner.rerun)
        assert len(spy.taken) == 2 and spy.closed == spy.taken[1:]
        runner.close()
        assert spy.closed == spy.taken[1:] + spy.taken[:1]
    finally:
        pool.close()
    assert result["verdict"] == "wrong_answer" and "never overwritten" in result["message"]
    graded = [c["name"] for c in result["cases"]] + result["skipped"]
    assert graded == [c["name"] for c in runner.cases]  # the rerun is none of them
