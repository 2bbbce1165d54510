"""The sandbox's building blocks: what bubblewrap binds, the result channel, cgroup kills."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from server.localserver import REPO
from server.sandbox import SandboxError, SandboxProcess, spec_from
from server.sandbox.cgroups import Cgroup, Limits, discover
from server.sandbox.channel import ChannelError, LineChannel, await_ready
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


def channel_with(data: bytes, limit: int = 1 << 20) -> LineChannel:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    return LineChannel(read_fd, limit)


def test_private_tmp_comes_before_the_binds_so_a_checkout_under_tmp_stays_visible() -> None:
    argv = bwrap_argv(["python"], 1 << 20)
    tmpfs = argv.index("--tmpfs")
    assert argv[tmpfs + 1] == "/tmp"
    binds = [i for i, a in enumerate(argv) if a == "--ro-bind"]
    assert binds and tmpfs < min(binds)


def test_channel_reads_objects_then_end_of_file() -> None:
    channel = channel_with(b'{"ready": true}\n{"name": "a"}\n')
    deadline = time.monotonic() + 5
    assert channel.read(deadline) == {"ready": True}
    assert channel.read(deadline) == {"name": "a"}
    assert channel.read(deadline) is None
    channel.close()


@pytest.mark.parametrize("data", [b"not json\n", b"[1, 2]\n", b"x" * 5000])
def test_channel_refuses_what_breaks_the_protocol(data: bytes) -> None:
    channel = channel_with(data, limit=4096)
    with pytest.raises(ChannelError):
        channel.read(time.monotonic() + 5)
    channel.close()


def test_channel_times_out() -> None:
    read_fd, write_fd = os.pipe()
    channel = LineChannel(read_fd, 1 << 20)
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
    gaps = await_ready(channel_with(b'{"ready": true, "confinement_gaps": ["Landlock (x)"]}\n'),
                       5, lambda: "log", SandboxError)
    assert gaps == ["Landlock (x)"]
    assert "cannot confine its ranks by: Landlock (x)" in caplog.text
    caplog.clear()
    assert await_ready(channel_with(b'{"ready": true, "confinement_gaps": []}\n'), 5,
                       lambda: "log", SandboxError) == []
    assert caplog.text == ""


def test_a_runner_that_does_not_say_what_it_confines_is_not_ready() -> None:
    with pytest.raises(SandboxError, match="runner not ready"):
        await_ready(channel_with(b'{"ready": true}\n'), 5, lambda: "log", SandboxError)
