"""The sandbox runner (``python -m cjudge.rank.runner``) as the sandboxes drive it: ready, one job,
one result line per case on its own channel, and ``--end-with-stdin``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.rank.runner import result_line
from cjudge.switch.core import empty_trace
from tests.grading.helpers import exercise

PRACTICE = Path(__file__).parents[2] / "practice"
SLOW = "import time\n\ndef ring_all_reduce(t):\n    time.sleep(60)\n"


@pytest.fixture
def runner(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.Popen, object]]:
    """A runner with its result channel on a pipe of its own; extra flags by param."""
    result_r, result_w = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(PRACTICE)}
    proc = subprocess.Popen([sys.executable, "-m", "cjudge.rank.runner", "--result-fd", str(result_w),
                             *getattr(request, "param", [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, pass_fds=(result_w,))
    os.close(result_w)
    results = os.fdopen(result_r, "r", encoding="utf-8")
    assert json.loads(results.readline()) == {"ready": True, "confinement_gaps": []}
    yield proc, results
    proc.kill()
    proc.wait()
    results.close()


def send(proc: subprocess.Popen, code: str, time_limit_s: float = 5.0) -> list[str]:
    """Give the runner ring-allreduce's sample case with ``code``; the case names sent."""
    ex = exercise("ring-allreduce")
    job = ex.job_spec(code, "learner.py")
    job["time_limit_s"] = time_limit_s
    cases = plan_cases(ex, only_samples=True)
    proc.stdin.write(json.dumps({"job": job, "cases": cases}).encode() + b"\n")
    proc.stdin.flush()
    return [case["name"] for case in cases]


def test_results_come_on_the_channel_and_prints_elsewhere(runner) -> None:
    proc, results = runner
    code = (Path(__file__).parents[2] / "exercises/ring-allreduce/solution.py").read_text()
    names = send(proc, "print('hello from rank')\n" + code)
    raws = [json.loads(results.readline()) for _ in names]
    assert [raw["name"] for raw in raws] == names
    assert all(rank["state"] == "returned" for raw in raws for rank in raw["ranks"])
    assert results.readline() == ""  # one job, then the channel closes
    assert proc.wait(10) == 0
    assert b"ready" not in proc.stdout.read()  # the channel is not stdout


@pytest.mark.parametrize("runner", [["--end-with-stdin"]], indirect=True)
def test_end_with_stdin_stops_the_job_and_its_ranks(runner) -> None:
    proc, results = runner
    send(proc, SLOW, time_limit_s=60)
    ranks = wait_for_ranks(proc.pid)
    begin = time.monotonic()
    proc.stdin.close()
    assert proc.wait(10) == 0
    assert time.monotonic() - begin < 5  # not the 60 s the case would take
    assert results.readline() == ""
    assert not alive(ranks, within_s=5)  # none outlives it


def test_without_the_flag_the_job_runs_to_its_end(runner) -> None:
    proc, results = runner
    names = send(proc, SLOW, time_limit_s=2)
    wait_for_ranks(proc.pid)
    proc.stdin.close()
    raw = json.loads(results.readline())
    assert raw["name"] == names[0] and raw["stop"] == "time_limit"
    assert proc.wait(10) == 0


def alive(pids: list[int], within_s: float) -> list[int]:
    """Those of ``pids`` still running (not gone, not a zombie) after up to ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        running = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                continue
            if state not in "ZX":
                running.append(pid)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.1)


def wait_for_ranks(runner_pid: int) -> list[int]:
    """The pids of the runner's children, once it has some."""
    children = Path(f"/proc/{runner_pid}/task/{runner_pid}/children")
    for _ in range(100):
        pids = [int(pid) for pid in children.read_text().split()]
        if pids:
            return pids
        time.sleep(0.1)
    raise AssertionError("the runner started no rank")


def test_a_case_record_larger_than_its_room_is_cut_to_a_trace_limit_the_grader_reads() -> None:
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[0]
    huge = {"shape": [400_000], "dtype": "float32", "data": [0.5] * 400_000}
    raw = {"name": spec["name"], "trace": empty_trace(4), "stop": None, "wall_ms": 3.0,
           "stdout": "x" * 100_000, "ranks": [
               {"rank": r, "state": "returned", "output": huge, "error": None}
               for r in range(4)]}
    assert json.loads(result_line(raw, 10 << 20)) == raw  # room enough: unchanged
    line = result_line(raw, 200_000)
    assert len(line) <= 200_000
    cut = json.loads(line)
    assert cut["stop"] == "trace_limit" and cut["trace"]["limit"] == "record"
    case = grade_case(CaseFacts.of(ex, spec, cut))
    assert case["verdict"] == "output_limit" and "larger than the judge keeps" in case["message"]
