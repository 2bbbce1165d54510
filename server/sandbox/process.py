"""One sandboxed runner process: started warm, given one job, then killed with all it started."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from cjudge.contract.protocol import CaseSpec, JobSpec
from cjudge.switch import packed

from .cgroups import Cgroup, Hierarchies, Limits
from .channel import ChannelError, FrameChannel, await_ready
from .drain import Drain
from .launch import RLimits, bwrap_argv, launcher_argv, plain_argv, runner_argv

LOG_KEEP = 16 * 1024
#: how long a runner that closed its result channel early may take to exit (a loaded machine)
EXIT_WAIT_S = 10.0


class SandboxError(Exception):
    """The sandbox failed before or outside the learner's code: the judge's fault."""


@dataclass(frozen=True)
class SandboxSpec:
    """How to start runners: isolated or not, and every limit."""

    sandboxed: bool
    limits: Limits
    rlimits: RLimits
    tmpfs_bytes: int
    stdout_limit: int
    result_limit: int  # the result channel's allowance for a job's records (results come on top)
    ready_timeout_s: float
    python: str = sys.executable  # the interpreter the runner runs on


#: why a sandbox's runner stopped before its last case
SandboxStop = Literal["time_limit", "memory_limit", "output_limit", "killed", "tampered"]


class Sandbox(ABC):
    """A warm runner in a sandbox, of any backend (``HostSandbox``s, ``DockerSandbox``).
    What all do with the runner's result channel is here: one raw report per case, or None
    once the runner stopped early (``self.stop`` says why: "time_limit", "memory_limit",
    "output_limit", "killed", or "tampered" when something in the sandbox broke the channel's
    protocol after the job was sent). Subclasses provide ``channel``, ``stop`` and the rest."""

    channel: FrameChannel
    stop: SandboxStop | None

    @abstractmethod
    def wait_ready(self) -> None:
        """Block until the runner says it is ready; ``SandboxError`` if it does not."""

    def send(self, job: JobSpec, cases: list[CaseSpec]) -> None:
        """Give the runner its one job. The channel's budget grows with the cases' sizes
        (``values.result_budget``), and the runner, told the allowance, keeps within it."""
        self.channel.expect(cases)
        self._give(packed.framed({"job": job, "cases": cases,
                                  "record_bytes": self.channel.allowance}))

    @abstractmethod
    def _give(self, frame: list[packed.Raw]) -> None:
        """Hand the runner its job's request: one frame, the inputs' elements as bytes."""

    @abstractmethod
    def kill(self) -> None:
        """Kill every process of the sandbox (safe to call from any thread, repeatedly)."""

    @abstractmethod
    def close(self) -> None:
        """Kill everything and free what the sandbox holds."""

    @abstractmethod
    def oom_kills(self) -> int:
        """How many of the sandbox's processes the OOM killer has killed so far."""

    @abstractmethod
    def log(self) -> str:
        """Exit status and the head of the runner's output, for the judge log."""

    @abstractmethod
    def _why_stopped(self) -> SandboxStop | None:
        """Classify an early end ("output_limit", "memory_limit", "killed"), or None when the
        runner exited by itself (the judge's fault)."""

    def _protocol_broken(self, exc: ChannelError) -> None:
        """The channel carried something that is not the runner's protocol."""
        self.kill()
        self.stop = "tampered"

    def next_raw(self, due: float) -> dict[str, Any] | None:
        """The next case's raw report, waited for until ``due`` (``time.monotonic()``), or None
        once the runner stopped early."""
        if self.stop is not None:
            return None
        try:
            raw = self.channel.read(due)
        except TimeoutError:
            self.kill()
            self.stop = "time_limit"
            return None
        except ChannelError as exc:
            self._protocol_broken(exc)
            return None
        if raw is None:
            self.stop = self._why_stopped()
            if self.stop is None:
                raise SandboxError(f"runner ended before its last case; {self.log()}")
        return raw


class HostSandbox(Sandbox):
    """A sandbox of this host's processes in cgroups of its own (``SandboxProcess``, and
    ``forked.ForkedSandbox``, forked by a fork server): killed by its cgroup and its first
    process, closed once and in this order. Subclasses provide ``cgroup`` and ``closed``."""

    cgroup: Cgroup | None
    closed: bool

    def kill(self) -> None:
        """Kill every process of the sandbox (safe to call from any thread, repeatedly)."""
        if self.cgroup:
            self.cgroup.kill()
        self._kill_first()

    def close(self) -> None:
        """Kill everything, reap, and free the cgroups and descriptors."""
        if self.closed:
            return
        self.closed = True
        self.kill()
        self._reap()
        self._remove_cgroup()
        self.channel.close()
        self._close_pipes()

    def oom_kills(self) -> int:
        """How many of the sandbox's processes the OOM killer has killed so far."""
        return self.cgroup.oom_kills() if self.cgroup else 0

    def _remove_cgroup(self) -> None:
        if self.cgroup:
            self.cgroup.remove()

    @abstractmethod
    def _kill_first(self) -> None:
        """Signal the sandbox's first process (whatever it started dies with it)."""

    @abstractmethod
    def _reap(self) -> None:
        """Wait until the killed first process is gone."""

    @abstractmethod
    def _close_pipes(self) -> None:
        """Close this side's ends of the sandbox's own pipes."""


class SandboxProcess(HostSandbox):
    """A runner started in its own sandbox and cgroups, waiting (warm) for its one job."""

    def __init__(self, spec: SandboxSpec, hier: Hierarchies) -> None:
        self.spec = spec
        self.cgroup = Cgroup(hier, spec.limits) if hier.controllers() or hier.v2 else None
        # a socket, not a pipe: /proc/<pid>/fd/N of a socket cannot be reopened, so code in the
        # sandbox cannot reach the runner's result channel even where it may read its /proc
        ours, theirs = socket.socketpair()
        read_fd, write_fd = ours.detach(), theirs.detach()
        inner = runner_argv(write_fd, spec.python)
        wrapped = (bwrap_argv(inner, spec.tmpfs_bytes, spec.python) if spec.sandboxed
                   else plain_argv(inner))
        procs = self.cgroup.procs_files if self.cgroup else []
        try:
            self.proc = subprocess.Popen(
                launcher_argv(procs, spec.rlimits, wrapped),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(write_fd,), start_new_session=True,
            )
        except BaseException:
            os.close(read_fd)
            self._remove_cgroup()
            raise
        finally:
            os.close(write_fd)
        self.channel = FrameChannel(read_fd, spec.result_limit)
        stdout, stderr = self.proc.stdout, self.proc.stderr
        assert isinstance(stdout, io.BufferedReader) and isinstance(stderr, io.BufferedReader)
        self.stdout = Drain(stdout, LOG_KEEP, spec.stdout_limit, self.kill)
        self.stderr = Drain(stderr, LOG_KEEP)
        self.closed = False
        self.stop: SandboxStop | None = None

    def wait_ready(self) -> None:
        """Block until the runner says it is ready; ``SandboxError`` if it does not."""
        self.confinement_gaps = await_ready(self.channel, self.spec.ready_timeout_s,
                                            self._exit_log, SandboxError)

    def _exit_log(self) -> str:
        """``log()`` once the runner that failed to start has exited (briefly waited for)."""
        try:
            self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            pass
        return self.log()

    def _give(self, frame: list[packed.Raw]) -> None:
        """Hand the runner its request (from a thread: a runner that does not read can't block)."""
        stdin = self.proc.stdin
        assert isinstance(stdin, io.BufferedWriter)  # Popen(stdin=PIPE)
        give_in_thread(self.cgroup, stdin, frame)

    def _kill_first(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _reap(self) -> None:
        self.proc.wait()

    def _close_pipes(self) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def log(self) -> str:
        """Exit status and the head of the runner's stderr, for the judge log."""
        status = self.proc.poll()
        return f"exit status {status}; stderr: {self.stderr.text(timeout=0.5)[-4000:].strip()}"

    def _why_stopped(self) -> SandboxStop | None:
        """Classify an early end: the learner's output, memory, a signal (the learner's code
        killed the runner), or None when the runner exited by itself (the judge's fault)."""
        try:
            status = self.proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            self.kill()
            status = self.proc.wait()
        return stop_reason(self.stdout.flooded, self.oom_kills(), status)


def stop_reason(flooded: bool, oom_kills: int, status: int) -> SandboxStop | None:
    """Why a runner that exited with ``status`` stopped early: its output flooded, the OOM
    killer, a signal (the learner's code killed it), or None (it exited by itself: the judge's
    fault)."""
    if flooded:
        return "output_limit"
    if oom_kills:
        return "memory_limit"
    killed = status < 0 or status > 128  # a signal; bwrap reports one as 128 + signal
    return "killed" if killed else None


def give_in_thread(cgroup: Cgroup | None, stdin: io.BufferedWriter,
                   frame: list[packed.Raw]) -> None:
    """Raise the sandbox's CPU priority and write its request to ``stdin`` from a thread (a
    runner that does not read cannot block the worker), then close it."""
    if cgroup:
        cgroup.set_priority(high=True)
    threading.Thread(target=_send, args=(stdin, frame), daemon=True).start()


def _send(stdin: io.BufferedWriter, frame: list[packed.Raw]) -> None:
    try:
        stdin.writelines(frame)
        stdin.close()
    except (BrokenPipeError, ValueError, OSError):
        pass  # the runner is gone; run() sees that on the result channel
