"""The warm judge (``cjudge.cli.warm``): ``judge.py test`` without importing torch each time,
with the same verdicts, exit status, output, directory and environment as a run in-process."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.cli import warm  # noqa: E402

SPINS = """
def ring_all_reduce(t):
    while True:
        pass
"""


@pytest.fixture
def warm_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private directory for this test's warm judges; they are stopped afterwards."""
    base = tmp_path / "warm"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("CJUDGE_WARM_DIR", str(base))
    yield base
    warm.stop_all()


def judge_command(warm_dir: Path, args: tuple[str, ...], cwd: Path, env: dict[str, str],
                  sigint: signal.Handlers | None) -> dict[str, Any]:
    """What starts ``judge.py args`` in ``cwd`` with this test's warm directory and ``env``; with
    SIGINT at ``sigint`` whatever this process has (a test run from a script's background job
    inherits it ignored), or as inherited when None."""
    return {"args": [sys.executable, str(ROOT / "practice" / "judge.py"), *args], "cwd": cwd,
            "text": True, "env": {**os.environ, "CJUDGE_WARM_DIR": str(warm_dir), **env},
            "preexec_fn": None if sigint is None
            else functools.partial(signal.signal, signal.SIGINT, sigint)}


def judge(warm_dir: Path, *args: str, cwd: Path = ROOT, sigint: signal.Handlers | None = None,
          **env: str) -> subprocess.CompletedProcess:
    """``judge.py`` run to its end, its output captured."""
    return subprocess.run(**judge_command(warm_dir, args, cwd, env, sigint), capture_output=True,
                          timeout=300)


def start_judge(warm_dir: Path, *args: str, sigint: signal.Handlers) -> subprocess.Popen:
    """``judge.py`` started, its output piped."""
    return subprocess.Popen(**judge_command(warm_dir, args, ROOT, {}, sigint),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def without_times(result: dict) -> dict:
    """The verdict without what differs from run to run on any runtime: wall times, and the
    order in which the ranks' messages reached the switch (the timeline, the model's sums)."""
    for case in result["cases"]:
        for varies in ("wall_ms", "timeline", "model"):
            case.pop(varies)
    return result


def warm_pids() -> list[int]:
    """The process ids of the warm judges in the fixture's ``CJUDGE_WARM_DIR``."""
    return [pid for _, pid in warm.running()]


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while listing
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_warm_run_gives_what_a_run_in_process_gives(warm_dir: Path) -> None:
    args = ("test", "ring-allreduce", "exercises/ring-allreduce/solution.py", "--json")
    cold = judge(warm_dir, *args, CJUDGE_WARM="0")
    assert cold.returncode == 0 and warm_pids() == []
    first, second = judge(warm_dir, *args), judge(warm_dir, *args)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert len(warm_pids()) == 1  # started by the first, used by the second
    expected = without_times(json.loads(cold.stdout))
    assert without_times(json.loads(first.stdout)) == expected
    assert without_times(json.loads(second.stdout)) == expected


def test_exit_status_output_directory_and_environment_are_the_callers(
        warm_dir: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    wrong = ROOT / "exercises" / "ring-allreduce" / "wrong" / "allgather_one_step_short.py"
    (workspace / "ring_allreduce.py").write_text(wrong.read_text())
    # the default file is the workspace copy named by CJUDGE_WORKSPACE, a relative one from
    # the caller's directory
    run = judge(warm_dir, "test", "ring-allreduce", cwd=tmp_path, CJUDGE_WORKSPACE="ws")
    assert run.returncode == 1, run.stderr
    assert "grading ws/ring_allreduce.py" in run.stdout and "wrong_answer" in run.stdout
    assert json.loads((workspace / ".state.json").read_text())["ring-allreduce"] == \
        "wrong_answer"
    assert len(warm_pids()) == 1


def spinning_call(warm_dir: Path, tmp_path: Path) -> tuple[subprocess.Popen, set[int]]:
    """A warm call whose ranks spin, and the warm judge's processes under it once they spin.

    The warm judge is started by a call that ignores SIGINT, as one started from a script's
    background job does; the spinning call's own caller takes SIGINT as a terminal's would.
    ring-allreduce runs with a 10 min time limit, so that only what the test does ends the case,
    however long a loaded machine takes to start the ranks.
    """
    exercises = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises" / "ring-allreduce", exercises / "ring-allreduce")
    toml = exercises / "ring-allreduce" / "exercise.toml"
    text, found = re.subn(r"(?m)^time_limit_s = .*$", "time_limit_s = 600.0", toml.read_text())
    assert found == 1
    toml.write_text(text)
    warming = judge(warm_dir, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
                    "--samples", "--exercises", str(exercises), sigint=signal.SIG_IGN)
    assert warming.returncode == 0, warming.stderr  # the warm judge is up
    spinning = tmp_path / "spins.py"
    spinning.write_text(SPINS)
    caller = start_judge(warm_dir, "test", "ring-allreduce", str(spinning), "--exercises",
                         str(exercises), sigint=signal.SIG_DFL)
    # the call has reached the warm judge once its child prints "grading"
    assert caller.stdout is not None
    assert "grading" in caller.stdout.readline()
    [server] = warm_pids()
    # the call's process and the case's ranks under it, once they are up
    deadline = time.monotonic() + 60
    while len(working := descendants(server)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(working) >= 3, working
    time.sleep(2.0)  # and spin
    return caller, descendants(server)


def all_end(pids: set[int]) -> set[int]:
    """The ``pids`` still running 30 s from now, or as soon as none is (orphans would outlive
    the warm judge's tree: each pid is checked)."""
    deadline = time.monotonic() + 30
    while (left := {pid for pid in pids if alive(pid)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def test_ctrl_c_stops_a_warm_run_and_its_ranks(warm_dir: Path, tmp_path: Path) -> None:
    caller, working = spinning_call(warm_dir, tmp_path)
    caller.send_signal(signal.SIGINT)
    out, err = caller.communicate(timeout=30)
    assert caller.returncode == 130, out + err
    assert all_end(working) == set()


def test_a_caller_gone_stops_its_warm_run_and_its_ranks(warm_dir: Path, tmp_path: Path) -> None:
    caller, working = spinning_call(warm_dir, tmp_path)
    caller.kill()  # no Ctrl-C to forward: the warm judge sees the call's socket close
    caller.communicate(timeout=30)
    assert all_end(working) == set()


def test_a_caller_that_ignores_ctrl_c_goes_on_as_a_run_here_would(
        warm_dir: Path, tmp_path: Path) -> None:
    run = start_judge(warm_dir, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
                      sigint=signal.SIG_IGN)
    assert run.stdout is not None
    assert "grading" in run.stdout.readline()
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0 and "accepted" in out.lower(), out + err


def test_an_edited_kernel_or_import_environment_needs_a_new_warm_judge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = tmp_path / "cjudge"
    kernel.mkdir()
    (kernel / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(warm, "KERNEL", kernel)
    key = warm.code_key()
    assert warm.code_key() == key
    (kernel / "a.py").write_text("x = 22\n")
    edited = warm.code_key()
    assert edited != key
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert warm.code_key() != edited


def test_a_directory_others_can_write_is_refused_and_the_run_happens_here(
        tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    run = judge(shared, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
                "--samples")
    assert run.returncode == 0
    assert "no warm judge" in run.stderr and "not a directory of this user's alone" in run.stderr
    assert list(shared.iterdir()) == []


def test_an_idle_warm_judge_exits_and_removes_its_socket(warm_dir: Path) -> None:
    run = judge(warm_dir, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
                "--samples", CJUDGE_WARM_IDLE_S="1")
    assert run.returncode == 0
    deadline = time.monotonic() + 20
    while list(warm_dir.glob("*.sock")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(warm_dir.glob("*.sock")) == [] and list(warm_dir.glob("*.pid")) == []


def test_warm_status_and_stop(warm_dir: Path) -> None:
    judge(warm_dir, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
          "--samples")
    [pid] = warm_pids()
    status = judge(warm_dir, "warm")
    assert f"pid {pid} (current code)" in status.stdout
    assert "stopped 1 warm judge" in judge(warm_dir, "warm", "stop").stdout
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists() or \
        Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    assert "no warm judge is running" in judge(warm_dir, "warm").stdout


def test_a_warm_judge_that_dies_warming_up_leaves_the_run_to_the_caller(warm_dir: Path) -> None:
    caller = subprocess.Popen(
        [sys.executable, str(ROOT / "practice" / "judge.py"), "test", "ring-allreduce",
         "exercises/ring-allreduce/solution.py", "--samples"], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "CJUDGE_WARM_DIR": str(warm_dir)})
    deadline = time.monotonic() + 60
    while not warm_pids() and time.monotonic() < deadline:
        time.sleep(0.01)
    [pid] = warm_pids()
    os.kill(pid, signal.SIGKILL)  # while it imports torch
    out, err = caller.communicate(timeout=120)
    assert caller.returncode == 0, err
    assert "no warm judge" in err and "accepted" in out


def test_a_directory_too_deep_for_a_socket_leaves_the_run_to_the_caller(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir(mode=0o700)
    run = judge(deep, "test", "ring-allreduce", "exercises/ring-allreduce/solution.py",
                "--samples")
    assert run.returncode == 0, run.stderr
    assert "no warm judge" in run.stderr and "accepted" in run.stdout
