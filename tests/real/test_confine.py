"""A confined rank reaches nothing but what the judge set up: checked in forked children, so that
the test process itself stays unconfined."""

from __future__ import annotations

import fcntl
import json
import mmap
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cjudge.real.confine import confine_rank, confinement_gaps, landlock_abi

needs_scopes = pytest.mark.skipif(landlock_abi() < 6, reason="the kernel has no Landlock scopes")


def outcome(action: Callable[[], object]) -> str:
    """"ok", or the name of the error ``action`` raised."""
    try:
        action()
        return "ok"
    except OSError as exc:
        return type(exc).__name__


def in_child(check: Callable[[], dict[str, str]], confine: bool = True) -> dict[str, str]:
    """Run ``check`` in a forked child (confined first, by default); what it returned."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            if confine:
                confine_rank()
            os.write(write_fd, json.dumps(check()).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def sleeping_sibling() -> int:
    """A confined child that waits to be killed, as a sibling rank would."""
    pid = os.fork()
    if pid == 0:
        confine_rank()
        time.sleep(30)
        os._exit(0)
    time.sleep(0.2)
    return pid


def test_this_machine_can_confine_ranks() -> None:
    assert confinement_gaps() == []


def test_a_confined_rank_opens_no_side_channel() -> None:
    got = in_child(lambda: {
        "tcp": outcome(socket.socket),
        "udp": outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
        "shared": outcome(lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED)),
        "private": outcome(lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)),
        "write": outcome(lambda: os.write(1, b"")),
    })
    assert got == {"tcp": "PermissionError", "udp": "PermissionError", "shared": "PermissionError",
                   "private": "ok", "write": "ok"}


def test_unconfined_the_same_calls_work() -> None:
    got = in_child(lambda: {"tcp": outcome(lambda: socket.socket().close()),
                            "shared": outcome(lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED))},
                   confine=False)
    assert got == {"tcp": "ok", "shared": "ok"}


@needs_scopes
def test_ranks_cannot_reach_each_other_or_the_judge_but_the_judge_reads_them() -> None:
    sibling, judge = sleeping_sibling(), os.getpid()
    try:
        got = in_child(lambda: {
            "memory": outcome(lambda: open(f"/proc/{sibling}/mem", "rb").close()),
            "fd": outcome(lambda: os.close(os.open(f"/proc/{sibling}/fd/1", os.O_WRONLY))),
            "signal sibling": outcome(lambda: os.kill(sibling, 0)),
            "signal judge": outcome(lambda: os.kill(judge, 0)),
            "own memory": outcome(lambda: open("/proc/self/mem", "rb").close()),
        })
        assert got == {"memory": "PermissionError", "fd": "PermissionError",
                       "signal sibling": "PermissionError", "signal judge": "PermissionError",
                       "own memory": "ok"}
        with open(f"/proc/{sibling}/io") as f:  # the judge's view of the rank's write counters
            assert f.read().startswith("rchar:")
    finally:
        os.kill(sibling, signal.SIGKILL)
        os.waitpid(sibling, 0)


def test_a_confined_rank_reads_but_changes_no_file(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.write_text("made before")
    got = in_child(lambda: {
        "create": outcome(lambda: open(tmp_path / "new", "w").close()),
        "write": outcome(lambda: open(shared, "a").close()),
        "symlink": outcome(lambda: os.symlink("data", tmp_path / "link")),
        "mkdir": outcome(lambda: os.mkdir(tmp_path / "dir")),
        "rename": outcome(lambda: os.rename(shared, tmp_path / "moved")),
        "chmod": outcome(lambda: os.chmod(shared, 0o604)),
        "utime": outcome(lambda: os.utime(shared, (1, 1))),
        "lock": outcome(lambda: fcntl.lockf(open(shared), fcntl.LOCK_SH | fcntl.LOCK_NB)),
        "read": outcome(lambda: shared.read_text()),
        "python": outcome(lambda: Path(os.__file__).read_text()),
        "own /proc": outcome(lambda: Path("/proc/self/status").read_text()),
        "cpuinfo": outcome(lambda: Path("/proc/cpuinfo").read_text()),
        "judge's /proc": outcome(lambda: Path(f"/proc/{os.getppid()}/cmdline").read_bytes()),
    })
    refused = ("create", "write", "symlink", "mkdir", "rename", "chmod", "utime", "lock",
               "judge's /proc")
    assert got == {key: "PermissionError" if key in refused else "ok" for key in got}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared"]
