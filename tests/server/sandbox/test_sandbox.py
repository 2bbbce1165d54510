"""The sandbox's building blocks: what bubblewrap binds, the result channel, cgroup kills."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Any

import pytest

from cjudge.switch import packed
from server.localserver import REPO
from server.sandbox import SandboxError, SandboxProcess, spec_from
from server.sandbox.cgroups import Cgroup, Limits, discover
from server.sandbox.channel import ChannelError, FrameChannel, await_ready
from server.sandbox.launch import KERNEL_DIR, bwrap_argv
from server.settings import Settings


def test_bwrap_binds_only_the_kernel_python_and_system_read_only() -> None:
    argv = bwrap_argv(["python"], 1 << 20)
    binds = [(argv[i], argv[i + 1], argv[i + 2]) for i, a in enumerate(argv)
             if a in ("--bind", "--ro-bind", "--dev-bind")]
    assert all(kind == "--ro-bind" for kind, _, _ in binds)
    sources = [src for _, src, _ in binds]
    assert str(KERNEL_DIR) in sources
    for src in sources:  # nothing of the repository but the kernel (and the venv, if in it)
        if src.startswith(str(REPO)):
            assert src == str(KERNEL_DIR) or "/.venv" in src, src
    for flag in ("--unshare-all", "--unshare-user", "--die-with-parent", "--disable-userns",
                 "--new-session", "--clearenv", "--as-pid-1"):
        assert flag in argv
    assert argv[argv.index("--uid") + 1] == "65534"


def channel_with(data: bytes, limit: int = 1 << 20) -> FrameChannel:
    """A channel that reads ``data``, then the end of file (written by a thread: more than a
    pipe holds)."""
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with open(write_fd, "wb") as out:
            try:
                out.write(data)
            except BrokenPipeError:
                pass  # the channel was closed before it read everything

    threading.Thread(target=write, daemon=True).start()
    return FrameChannel(read_fd, limit)


def frames(*values: Any) -> bytes:
    """``values`` as the runner frames them."""
    return b"".join(bytes(part) for value in values for part in packed.framed(value))


def test_private_tmp_comes_before_the_binds_so_a_checkout_under_tmp_stays_visible() -> None:
    argv = bwrap_argv(["python"], 1 << 20)
    tmpfs = argv.index("--tmpfs")
    assert argv[tmpfs + 1] == "/tmp"
    binds = [i for i, a in enumerate(argv) if a == "--ro-bind"]
    assert binds and tmpfs < min(binds)


def tensor(numel: int) -> dict[str, Any]:
    return {"shape": [numel], "dtype": "float32", "data": [0.5 * i for i in range(numel)]}


def test_channel_reads_objects_with_their_tensors_then_end_of_file() -> None:
    case = {"name": "a", "ranks": [{"rank": r, "output": tensor(5 + r)} for r in range(2)]}
    channel = channel_with(frames({"ready": True}, case))
    deadline = time.monotonic() + 5
    assert channel.read(deadline) == {"ready": True}
    assert channel.read(deadline) == case  # the elements crossed as bytes, come back as lists
    assert channel.read(deadline) is None
    channel.close()


def test_a_frame_cut_short_by_the_end_of_file_is_the_end_not_tampering() -> None:
    """A runner killed while it wrote (out of memory, say) ends the channel mid-frame."""
    whole = frames({"name": "a", "ranks": [{"output": tensor(100)}]})
    channel = channel_with(whole[:-7])
    assert channel.read(time.monotonic() + 5) is None
    channel.close()


def head(skeleton: bytes, buffer: bytes = b"") -> bytes:
    return b"%d %d\n" % (len(skeleton), len(buffer)) + skeleton + buffer


NOT_A_FRAME, NOT_AN_OBJECT, MALFORMED = "first line", "not an object", "malformed"


@pytest.mark.parametrize(("data", "why"), [
    (b"not json\n", NOT_A_FRAME), (b'{"ready": true}\n', NOT_A_FRAME),  # a JSON line is no frame
    (b"x" * 5000, "do not start a frame"),
    (b"-3 0\n[]", NOT_A_FRAME), (b"03 0\n{}", NOT_A_FRAME), (b"3 0 \n{}", NOT_A_FRAME),
    (b"3\t0\n{}", NOT_A_FRAME), (b"1" * 16 + b" 0\n", NOT_A_FRAME),
    (head(b"[1, 2]"), NOT_AN_OBJECT), (head(b"not json"), MALFORMED),
    (head(b"\xff{}"), MALFORMED), (head(b"[" * 100_000 + b"]" * 100_000), MALFORMED),
    (head(b'{"t": {"shape": [2], "dtype": "float32", "at": [4, 8]}}', bytes(8)), MALFORMED),
    (head(b'{"t": {"shape": [3], "dtype": "float32", "at": [0, 8]}}', bytes(8)), MALFORMED),
    (head(b'{"t": {"shape": [1], "dtype": "complex", "at": [0, 8]}}', bytes(8)), MALFORMED),
    (head(b'{"t": {"shape": [1], "dtype": "float64", "at": [-8, 8]}}', bytes(8)), MALFORMED),
])
def test_channel_refuses_what_breaks_the_protocol(data: bytes, why: str) -> None:
    channel = channel_with(data)
    with pytest.raises(ChannelError, match=why):
        channel.read(time.monotonic() + 5)
    channel.close()


def test_channel_refuses_more_bytes_than_its_budget() -> None:
    channel = channel_with(head(b'{"x": 1}', bytes(5000)), limit=4096)
    with pytest.raises(ChannelError, match="4096 bytes"):
        channel.read(time.monotonic() + 5)
    channel.close()


def test_a_frame_claiming_more_than_the_budget_is_refused_before_its_bytes_come() -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, frames({"ready": True}) + b"2 4294967296\n{}")  # 4 GiB said, none sent
    channel = FrameChannel(read_fd, 1 << 20)
    assert channel.read(time.monotonic() + 5) == {"ready": True}
    with pytest.raises(ChannelError, match="past its budget"):
        channel.read(time.monotonic() + 5)  # not a wait for bytes that never come
    channel.close()
    os.close(write_fd)


def test_the_budget_grows_with_the_jobs_cases() -> None:
    """The allowance is for records; each case's results may add what its inputs hold, times
    its world (an all-gather's result is every rank's input, on every rank)."""
    big = {"name": "a", "ranks": [{"rank": r, "output": tensor(4096)} for r in range(2)]}
    inputs = [{"shape": [2048], "dtype": "float32", "data": [0.0] * 2048}] * 2
    case: Any = {"name": "a", "world_size": 2, "sample": False, "params": {}, "inputs": inputs}
    refused = channel_with(frames(big), limit=16 << 10)
    with pytest.raises(ChannelError):
        refused.read(time.monotonic() + 5)
    refused.close()
    channel = channel_with(frames(big), limit=16 << 10)
    channel.expect([case])
    assert channel.limit == (16 << 10) + 2 * 2 * 2048 * 4
    assert channel.read(time.monotonic() + 5) == big
    channel.close()


def test_channel_times_out() -> None:
    read_fd, write_fd = os.pipe()
    channel = FrameChannel(read_fd, 1 << 20)
    with pytest.raises(TimeoutError):
        channel.read(time.monotonic() + 0.1)
    channel.close()
    os.close(write_fd)


@pytest.mark.needs_sandbox
def test_cgroup_kill_takes_daemons_too() -> None:
    hier = discover()
    group = Cgroup(hier, Limits(256 << 20, 64))
    joins = "; ".join(f"echo $$ > {f}" for f in group.procs_files)
    proc = subprocess.Popen(["sh", "-c", f"{joins}; setsid sleep 300 & sleep 300"])
    time.sleep(0.5)
    assert len(group.pids()) >= 2
    group.remove()
    assert proc.wait(timeout=10) != 0
    assert not any(d.exists() for d in [group.v2, *group.v1.values()] if d is not None)


@pytest.mark.needs_sandbox
def test_the_ranks_in_the_sandbox_can_confine_themselves() -> None:
    """The runner, started in bubblewrap, finds everything its ranks confine themselves with
    (Landlock, libseccomp: the linker's cache is bound in for it)."""
    hier = discover()
    sandbox = SandboxProcess(spec_from(Settings(sandbox="bwrap"), hier), hier)
    try:
        sandbox.wait_ready()
        assert sandbox.confinement_gaps == []
    finally:
        sandbox.close()


def test_ready_line_gives_the_confinement_gaps_and_warns_of_them(caplog) -> None:
    gaps = await_ready(channel_with(frames({"ready": True, "confinement_gaps": ["Landlock (x)"]})),
                       5, lambda: "log", SandboxError)
    assert gaps == ["Landlock (x)"]
    assert "cannot confine its ranks by: Landlock (x)" in caplog.text
    caplog.clear()
    assert await_ready(channel_with(frames({"ready": True, "confinement_gaps": []})), 5,
                       lambda: "log", SandboxError) == []
    assert caplog.text == ""


def test_a_runner_that_does_not_say_what_it_confines_is_not_ready() -> None:
    with pytest.raises(SandboxError, match="runner not ready"):
        await_ready(channel_with(frames({"ready": True})), 5, lambda: "log", SandboxError)
