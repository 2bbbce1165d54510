"""The sandbox runner (``python -m cjudge.rank.runner``) as the sandboxes drive it: ready, one job,
one result frame per case on its own channel (read as the server reads it), and
``--end-with-stdin``."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.rank.runner import result_frame
from cjudge.switch import packed
from cjudge.switch.core import empty_trace
from server.sandbox.channel import FrameChannel
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
    results = Results(FrameChannel(result_r, 1 << 30))
    assert results.next() == {"ready": True, "confinement_gaps": []}
    yield proc, results
    proc.kill()
    proc.wait()
    results.channel.close()


class Results:
    """The runner's result channel, read as the server reads it."""

    def __init__(self, channel: FrameChannel) -> None:
        self.channel = channel

    def next(self, timeout_s: float = 120.0) -> dict | None:
        """The next message; None once the channel closed."""
        return self.channel.read(time.monotonic() + timeout_s)


def send(proc: subprocess.Popen, code: str, time_limit_s: float = 5.0) -> list[str]:
    """Give the runner ring-allreduce's sample case with ``code``; the case names sent."""
    ex = exercise("ring-allreduce")
    job = ex.job_spec(code, "learner.py")
    job["time_limit_s"] = time_limit_s
    cases = plan_cases(ex, only_samples=True)
    proc.stdin.write(b"".join(bytes(part) for part in packed.framed({"job": job,
                                                                     "cases": cases})))
    proc.stdin.flush()
    return [case["name"] for case in cases]


def test_results_come_on_the_channel_and_prints_elsewhere(runner) -> None:
    proc, results = runner
    code = (Path(__file__).parents[2] / "exercises/ring-allreduce/solution.py").read_text()
    names = send(proc, "print('hello from rank')\n" + code)
    raws = [results.next() for _ in names]
    assert [raw["name"] for raw in raws] == names
    assert all(rank["state"] == "returned" for raw in raws for rank in raw["ranks"])
    assert all(rank["output"]["data"] == raw["ranks"][0]["output"]["data"]  # lists again
               and isinstance(rank["output"]["data"], list) for raw in raws for rank in raw["ranks"])
    assert results.next() is None  # one job, then the channel closes
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
    assert results.next() is None
    assert not alive(ranks, within_s=5)  # none outlives it


def test_without_the_flag_the_job_runs_to_its_end(runner) -> None:
    proc, results = runner
    names = send(proc, SLOW, time_limit_s=2)
    wait_for_ranks(proc.pid)
    proc.stdin.close()
    raw = results.next()
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
    whole = b"".join(bytes(part) for part in result_frame(ex.job_spec("", "learner.py"), raw, 10 << 20))
    assert len(whole) < 4 * 400_000 * 4 + 200_000  # the elements as bytes, not as JSON text
    assert read_frames(whole) == [raw]  # room enough: unchanged
    frame = b"".join(bytes(part) for part in result_frame(ex.job_spec("", "learner.py"), raw, 200_000))
    assert len(frame) <= 200_000
    [cut] = read_frames(frame)
    assert cut["stop"] == "trace_limit" and cut["trace"]["limit"] == "record"
    case = grade_case(CaseFacts.of(ex, spec, cut))
    assert case["verdict"] == "output_limit" and "larger than the judge keeps" in case["message"]


def read_frames(data: bytes) -> list[dict]:
    """The messages of ``data``, read as the server reads its channel."""
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=write_all, args=(write_fd, data))
    writer.start()
    results, found = Results(FrameChannel(read_fd, 1 << 30)), []
    while (message := results.next(5.0)) is not None:
        found.append(message)
    writer.join()
    results.channel.close()
    return found


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` into ``fd`` and close it."""
    with open(fd, "wb") as out:
        out.write(data)
