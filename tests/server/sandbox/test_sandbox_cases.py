"""The worker's side of a sandbox's answers (``server.sandbox.cases.SandboxCases``): when a rank was
killed by SIGKILL, it is ``memory_limit`` only if the sandbox's count of OOM kills grew in that
case, read once (the kernel counts a kill before it signals the victim: nothing to wait for)."""

from __future__ import annotations

from typing import Any

import pytest

from cjudge.exercise.exercises import default_root, load_exercise
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from server.sandbox.cases import SandboxCases

CASE = {"name": "sample", "world_size": 2, "sample": True, "params": {}, "inputs": []}
JOB = {"time_limit_s": 5.0}


class FakeSandbox:
    """Answers one case whose rank 1 died of ``signal``; the OOM count reads ``counts`` in turn."""

    def __init__(self, signal: str, counts: list[int], stop: str | None = None) -> None:
        self.signal = signal
        self.counts = counts
        self.case_stop = stop  # what the runtime reported stopping the case
        self.asked = 0

    def send(self, job: dict[str, Any], cases: list[dict[str, Any]]) -> None:
        pass

    def next_raw(self, due: float) -> dict[str, Any]:
        error = {"kind": "signal", "type": self.signal, "message": f"killed by {self.signal}",
                 "traceback": "", "line": None}
        ranks = [{"rank": 0, "state": "blocked", "output": None, "error": None},
                 {"rank": 1, "state": "failed", "output": None, "error": error}]
        return {"name": "sample", "ranks": ranks, "events": [], "stdout": "", "stop": self.case_stop,
                "wall_ms": 1.0}

    def oom_kills(self) -> int:
        self.asked += 1
        return self.counts[min(self.asked, len(self.counts)) - 1]


class FakePool:
    def __init__(self, sandbox: FakeSandbox) -> None:
        self.sandbox = sandbox

    def take(self) -> FakeSandbox:
        return self.sandbox


@pytest.mark.parametrize(("signal", "counts", "stop"), [
    ("SIGKILL", [1], "memory_limit"),  # the OOM killer fired in this case
    ("SIGKILL", [0], None),            # no OOM kill at all: the learner's own kill
    ("SIGSEGV", [0], None),            # not the OOM killer's signal, no OOM kill
])
def test_a_sigkill_is_memory_limit_only_on_oom_evidence(signal: str, counts: list[int],
                                                        stop: str | None) -> None:
    sandbox = FakeSandbox(signal, counts)
    raw = SandboxCases(FakePool(sandbox), [CASE])(JOB, CASE)  # type: ignore[arg-type]
    assert raw["stop"] == stop and sandbox.asked == 1  # read once, never polled


@pytest.mark.parametrize(("reported", "stop"), [
    ("time_limit", "memory_limit"),  # ranks thrashing in a full cgroup ran past the limit
    ("deadlock", "memory_limit"),    # the killed rank's peers waited on it
    ("output_limit", "output_limit"),  # the judge's record limits stay
])
def test_an_oom_kill_is_the_cause_of_what_it_led_to(reported: str, stop: str) -> None:
    sandbox = FakeSandbox("SIGKILL", [1], stop=reported)
    raw = SandboxCases(FakePool(sandbox), [CASE])(JOB, CASE)  # type: ignore[arg-type]
    assert raw["stop"] == stop


def test_only_an_oom_kill_in_this_case_counts() -> None:
    """The count is cumulative over the sandbox's life: an earlier case's OOM kill does not make
    a later SIGKILL a memory limit."""
    sandbox = FakeSandbox("SIGKILL", [1, 1])
    cases = SandboxCases(FakePool(sandbox), [CASE, CASE])
    first, second = cases(JOB, CASE), cases(JOB, CASE)  # type: ignore[arg-type]
    assert (first["stop"], second["stop"]) == ("memory_limit", None)


class StoppedSandbox(FakeSandbox):
    """A sandbox that ended without answering (killed mid-case, e.g. by a fork bomb)."""

    stop = "killed"

    def next_raw(self, due: float) -> None:
        return None

    def log(self) -> str:
        return "the runner was killed"


def test_a_sandbox_that_stopped_early_is_graded_as_the_learners_failure_not_the_judges() -> None:
    ex = load_exercise(default_root() / "ring-allreduce")
    spec = plan_cases(ex)[0]
    raw = SandboxCases(FakePool(StoppedSandbox("SIGKILL", [0])), [spec])(JOB, spec)  # type: ignore[arg-type]
    case = grade_case(CaseFacts.of(ex, spec, raw))  # a report the grader reads like any runtime's
    assert case["verdict"] == "runtime_error" and "killed while your code ran" in case["message"]
    assert case["bytes_sent"] == [0] * spec["world_size"]
