"""Sandboxes forked from a fork server that has imported torch once (``cjudge.rank.forkserver``).

A fresh sandbox costs a fork and a few mounts instead of an interpreter that imports torch
(about 1.4 CPU seconds). The fork server runs in a bubblewrap sandbox of its own
(``bwrap_argv(fork_server=True)``); each sandbox it forks is moved into its own cgroups by this
side before it runs anything, then makes fresh user, mount, pid, network, IPC, UTS and cgroup
namespaces, its own /proc, /tmp, /dev/shm and /dev/pts, drops every capability and serves one
job, exactly as a :class:`~server.sandbox.process.SandboxProcess` runner does.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import struct
import subprocess
import threading
from dataclasses import asdict

from cjudge.rank.forkserver import SandboxAsk
from cjudge.switch import packed

from .cgroups import Cgroup, Hierarchies
from .channel import FrameChannel, await_ready
from .drain import Drain
from .launch import SANDBOX_ENV, bwrap_argv
from .process import (
    EXIT_WAIT_S,
    LOG_KEEP,
    HostSandbox,
    SandboxError,
    SandboxSpec,
    SandboxStop,
    give_in_thread,
    stop_reason,
)

#: how long the fork server may take to hand over a forked sandbox's pid
HANDOVER_S = 10.0
KILLED = -signal.SIGKILL  # the exit status of a sandbox whose child was killed


def rlimits_of(spec: SandboxSpec) -> dict[str, int]:
    """The spec's rlimits by ``resource.RLIMIT_*`` name (lower case), as the fork server sets
    them."""
    names = {"cpu_s": "cpu", "file_bytes": "fsize", "nofile": "nofile", "nproc": "nproc",
             "address_bytes": "as"}
    limits = {names[k]: v for k, v in asdict(spec.rlimits).items() if v is not None}
    return {**limits, "core": 0}


class ForkServer:
    """The fork server's sandbox, started on first use and again whenever it has ended."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.stderr: Drain | None = None

    def fork(self, fds: list[int]) -> None:
        """Have the server fork a sandbox with ``fds`` (stdin, stdout, stderr, result channel,
        handshake: ``cjudge.rank.forkserver.FDS``)."""
        ask = SandboxAsk(tmpfs_bytes=self.spec.tmpfs_bytes, rlimits=rlimits_of(self.spec),
                         env={**SANDBOX_ENV, "PYTHONPATH": "/judge"})
        with self.lock:
            control = self._started()
            try:
                socket.send_fds(control, [json.dumps(ask).encode()], fds)
            except OSError as exc:
                self._stop()
                raise SandboxError(f"the fork server is gone: {exc}") from None

    def close(self) -> None:
        """Stop the server, and with it every sandbox it forked (they die with it)."""
        with self.lock:
            self._stop()

    def _started(self) -> socket.socket:
        """The running server's control socket, starting the server if needed."""
        if self.proc is not None and self.proc.poll() is None and self.control is not None:
            return self.control
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        inner = [self.spec.python, "-m", "cjudge.rank.forkserver", "--control-fd",
                 str(theirs.fileno())]
        try:
            self.proc = subprocess.Popen(
                bwrap_argv(inner, self.spec.tmpfs_bytes, self.spec.python, fork_server=True),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        assert isinstance(self.proc.stderr, io.BufferedReader)  # Popen(stderr=PIPE)
        self.stderr = Drain(self.proc.stderr, LOG_KEEP)
        self.control = ours
        ours.settimeout(self.spec.ready_timeout_s)
        try:
            hello = ours.recv(256)
        except TimeoutError:
            hello = b""
        ours.settimeout(None)
        if hello != b'{"ready": true}':
            raise SandboxError(f"the fork server did not start: {self._stopped_log()}")
        return ours

    def _stopped_log(self) -> str:
        """Stop the server that failed to start; its exit status and the head of its stderr."""
        assert self.proc is not None and self.stderr is not None
        try:
            status = self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            status = None
        stderr = self.stderr
        self._stop()
        return f"exit status {status}; stderr: {stderr.text(timeout=0.5)[-4000:].strip()}"

    def _stop(self) -> None:
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc = None


class ForkedSandbox(HostSandbox):
    """A runner forked by ``server`` into its own cgroups and namespaces, waiting (warm) for its
    one job."""

    def __init__(self, server: ForkServer, spec: SandboxSpec, hier: Hierarchies) -> None:
        self.spec = spec
        self.cgroup = Cgroup(hier, spec.limits) if hier.controllers() or hier.v2 else None
        self.closed = False
        self.stop: SandboxStop | None = None
        self.status: int | None = None
        self.exited = threading.Event()
        theirs: list[int] = []
        try:
            self._fork(server, theirs)
        except BaseException:
            for fd in theirs:
                os.close(fd)
            self._remove_cgroup()
            raise

    def _fork(self, server: ForkServer, theirs: list[int]) -> None:
        """Make the sandbox's descriptors, have ``server`` fork it, move it into its cgroups."""
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        result_r, result_w = (s.detach() for s in socket.socketpair())
        handshake, their_handshake = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        handshake.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        theirs += [stdin_r, stdout_w, stderr_w, result_w, their_handshake.detach()]
        self.handshake = handshake
        self.stdin = open(stdin_w, "wb")  # noqa: SIM115 - closed by _send or close
        self.channel = FrameChannel(result_r, self.spec.result_limit)
        self.stdout = Drain(open(stdout_r, "rb"), LOG_KEEP, self.spec.stdout_limit, self.kill)  # noqa: SIM115
        self.stderr = Drain(open(stderr_r, "rb"), LOG_KEEP)  # noqa: SIM115
        server.fork(theirs)
        for fd in theirs:
            os.close(fd)
        theirs.clear()
        self.pid = self._handed_over()
        threading.Thread(target=self._await_exit, daemon=True).start()

    def _handed_over(self) -> int:
        """The forked child's pid, once it is in the sandbox's cgroups (it waits for that)."""
        self.handshake.settimeout(HANDOVER_S)
        try:
            _, ancillary, _, _ = self.handshake.recvmsg(16, socket.CMSG_SPACE(12))
        except TimeoutError:
            raise SandboxError("the fork server did not fork a sandbox in time") from None
        creds = [data for level, kind, data in ancillary
                 if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS]
        if not creds:
            raise SandboxError("the forked sandbox did not say its pid")
        pid: int = struct.unpack("3i", creds[0][:12])[0]
        if self.cgroup is not None:
            for procs in self.cgroup.procs_files:
                try:
                    procs.write_text(str(pid))
                except OSError as exc:
                    os.kill(pid, signal.SIGKILL)
                    raise SandboxError(f"could not move a forked sandbox into {procs}: {exc}") \
                        from None
        self.handshake.settimeout(None)
        self.handshake.send(b"go")
        return pid

    def _await_exit(self) -> None:
        """Wait for the child's report of its sandbox's exit status (none: it was killed)."""
        try:
            report = self.handshake.recv(32)
        except OSError:
            report = b""
        self.status = int(report) if report.lstrip(b"-").isdigit() else KILLED
        self.exited.set()

    def wait_ready(self) -> None:
        """Block until the runner says it is ready; ``SandboxError`` if it does not."""
        self.confinement_gaps = await_ready(self.channel, self.spec.ready_timeout_s,
                                            self._exit_log, SandboxError)

    def _exit_log(self) -> str:
        self.exited.wait(2.0)
        return self.log()

    def _give(self, frame: list[packed.Raw]) -> None:
        """Hand the runner its request (from a thread: a runner that does not read can't block)."""
        give_in_thread(self.cgroup, self.stdin, frame)

    def _kill_first(self) -> None:
        if not self.exited.is_set():
            try:
                os.kill(self.pid, signal.SIGKILL)  # its PID 1 and pid namespace die with it
            except ProcessLookupError:
                pass

    def _reap(self) -> None:
        self.exited.wait(EXIT_WAIT_S)

    def _close_pipes(self) -> None:
        self.handshake.close()
        try:
            self.stdin.close()
        except OSError:
            pass

    def log(self) -> str:
        """Exit status and the head of the runner's stderr, for the judge log."""
        return (f"exit status {self.status}; "
                f"stderr: {self.stderr.text(timeout=0.5)[-4000:].strip()}")

    def _why_stopped(self) -> SandboxStop | None:
        """Classify an early end as ``SandboxProcess`` does."""
        if not self.exited.wait(EXIT_WAIT_S):
            self.kill()
            self.exited.wait()
        status = self.status if self.status is not None else KILLED
        return stop_reason(self.stdout.flooded, self.oom_kills(), status)
