"""Sandboxes forked by a fork server (``server.sandbox.forked``): each in namespaces, mounts and
cgroups of its own, holding nothing of the sandbox forked before it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cjudge.exercise.exercises import load_exercises
from cjudge.grading.submission import judge_code
from server.localserver import EXERCISES
from server.sandbox import WarmPool, spec_from
from server.sandbox.cases import RUNTIME, sandbox_cases
from server.sandbox.cgroups import discover
from server.sandbox.forked import ForkedSandbox, ForkServer
from server.sandbox.launch import SANDBOX_ENV, bwrap_argv
from server.settings import Settings

NAMESPACES = ("user", "mnt", "pid", "net", "ipc", "uts", "cgroup")
DAEMON = "98766"  # how long A's process left behind sleeps: its mark on the command line


def test_only_the_fork_servers_sandbox_may_make_user_namespaces() -> None:
    plain, server = bwrap_argv(["python"], 1 << 20), bwrap_argv(["python"], 1 << 20,
                                                                 fork_server=True)
    assert "--disable-userns" in plain and "--disable-userns" not in server
    assert "--cap-drop" in server and server[server.index("--uid") + 1] == "65534"
    assert server[server.index("--remount-ro") + 1] == "/dev"


@pytest.fixture
def forked(tmp_path: Path) -> Iterator[tuple[ForkServer, Settings]]:
    """A fork server, stopped after the test."""
    settings = Settings(sandbox="bwrap", data_dir=tmp_path)
    server = ForkServer(spec_from(settings, discover()))
    yield server, settings
    server.close()


def first_process(sandbox: ForkedSandbox) -> int:
    """The host's pid of the sandbox's PID 1 (the only child of the process the server forked)."""
    children = Path(f"/proc/{sandbox.pid}/task/{sandbox.pid}/children").read_text().split()
    assert len(children) == 1
    return int(children[0])


def processes_seen_by(pid: int) -> dict[str, tuple[bytes, bytes]]:
    """What process ``pid`` sees in its /proc: each pid with its command line and environment."""
    proc = Path(f"/proc/{pid}/root/proc")
    return {p.name: ((p / "cmdline").read_bytes(), (p / "environ").read_bytes())
            for p in proc.iterdir() if p.name.isdigit()}


@pytest.mark.needs_sandbox
def test_a_sandbox_sees_nothing_of_the_one_forked_before(
        forked: tuple[ForkServer, Settings]) -> None:
    server, settings = forked
    hier = discover()
    spec = spec_from(settings, hier)
    a = ForkedSandbox(server, spec, hier)
    daemon = None
    try:
        a.wait_ready()
        pid_a = first_process(a)
        for folder in ("tmp", "dev/shm"):
            Path(f"/proc/{pid_a}/root/{folder}/left-by-a").write_text("A")
        daemon = subprocess.Popen(["nsenter", "-t", str(pid_a), "-a", "--preserve-credentials",
                                   "env", "LEFT_BY_A=1", "sleep", DAEMON])
        while not any(DAEMON.encode() in cmd for cmd, _ in processes_seen_by(pid_a).values()):
            assert daemon.poll() is None, "the process left in A did not start"
            time.sleep(0.05)
        b = ForkedSandbox(server, spec, hier)
        try:
            b.wait_ready()
            pid_b = first_process(b)
            for ns in NAMESPACES:
                assert os.readlink(f"/proc/{pid_a}/ns/{ns}") != os.readlink(f"/proc/{pid_b}/ns/{ns}")
            for folder in ("tmp", "dev/shm"):
                assert Path(f"/proc/{pid_a}/root/{folder}/left-by-a").exists()
                assert os.listdir(f"/proc/{pid_b}/root/{folder}") == []
            seen = processes_seen_by(pid_b)
            assert "1" in seen and len(seen) <= 3  # the runner, its zygote (and a reader)
            for cmdline, environ in seen.values():
                assert DAEMON.encode() not in cmdline and b"LEFT_BY_A" not in environ
            # the environment the fork server was started with (bwrap's), as in every sandbox
            env = dict(v.split(b"=", 1) for v in seen["1"][1].split(b"\0") if v)
            wanted = {**SANDBOX_ENV, "PYTHONPATH": "/judge", "PWD": "/tmp"}
            assert env == {k.encode(): v.encode() for k, v in wanted.items()}
            status = Path(f"/proc/{pid_b}/status").read_text()
            for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
                assert f"{field}:\t0000000000000000" in status
            assert "NoNewPrivs:\t1" in status
        finally:
            b.close()
    finally:
        if daemon is not None:
            daemon.kill()
            daemon.wait()
        a.close()


#: each rank keeps 96 MiB, touched: a case's ranks together pass the sandbox's 192 MiB (while
#: each stays far below its own rlimit), so the memory cgroup's OOM killer ends the case
RANKS_TOGETHER_TOO_BIG = """
def ring_all_reduce(t):
    hog = bytearray(96 << 20)
    for _ in range(1000):
        for i in range(0, len(hog), 4096):
            hog[i] = 1
    return t
"""


@pytest.mark.needs_sandbox
def test_a_forked_sandbox_over_its_memory_is_killed_as_memory_limit(tmp_path: Path) -> None:
    settings = Settings(sandbox="bwrap", memory_limit_mb=192, data_dir=tmp_path)
    hier = discover()
    spec = spec_from(settings, hier)
    server = ForkServer(spec)
    pool = WarmPool(lambda: ForkedSandbox(server, spec, hier), 1, settings.ready_timeout_s,
                    on_close=server.close)
    exercise = load_exercises(EXERCISES)["ring-allreduce"]
    runner = sandbox_cases(exercise, 7, pool)
    try:
        result = judge_code(exercise, RANKS_TOGETHER_TOO_BIG, "hog.py", runner, RUNTIME, seed=7,
                            cases=runner.cases)
    finally:
        runner.close()
        pool.close()
    assert runner.oom_kills >= 1
    assert result["verdict"] == "memory_limit"


@pytest.mark.needs_sandbox
def test_a_fork_server_that_died_is_started_again(forked: tuple[ForkServer, Settings]) -> None:
    server, settings = forked
    hier = discover()
    spec = spec_from(settings, hier)
    ForkedSandbox(server, spec, hier).close()
    assert server.proc is not None
    first = server.proc.pid
    os.killpg(first, signal.SIGKILL)
    server.proc.wait()
    sandbox = ForkedSandbox(server, spec, hier)
    try:
        sandbox.wait_ready()
    finally:
        sandbox.close()
    assert server.proc is not None and server.proc.pid != first
