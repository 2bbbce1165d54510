"""The docker sandbox backend (``CJUDGE_SANDBOX=docker``): each submission's runner in a fresh
container of the runner image, started warm by the worker through the Docker engine's socket.

The container has no network but its own loopback, a read-only root, a private size-bounded
tmpfs, memory, process and CPU limits, no capabilities, no-new-privileges and an unprivileged
user; the engine keeps no log of its output, and removes it once it ends, after its one job.
The runner's results come back on the container's stdout (the learner's prints go to its
stderr, bounded). The runner itself is PID 1 (no docker-init) and undumpable, so it is the only
process holding that stdout and the ranks (same uid) cannot reopen it through /proc. Expected
values never enter the container: the worker grades outside.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from ..settings import Settings
from .channel import ChannelError, LineChannel, await_ready
from .docker_engine import Engine, EngineError
from .drain import Drain
from .launch import SANDBOX_ENV, RLimits
from .pool import WarmPool
from .process import LOG_KEEP, Sandbox, SandboxError, SandboxStop

log = logging.getLogger(__name__)

#: label on every sandbox container; its value names the worker that started it
LABEL = "cjudge.sandbox"
#: nobody, as in the bubblewrap sandbox (and the runner image's user)
USER = "65534:65534"
RUNNER_PATH = "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin"
KERNEL_PATH = "/judge"
#: CPU weight (the default is 1024): the lowest while warming up, so that a sandbox importing
#: torch gets idle CPU only, never a running submission's; the default once given its job
WARM_CPU_SHARES = 2
RUN_CPU_SHARES = 1024


def container_config(settings: Settings, owner: str, cpu_seconds: int) -> dict[str, Any]:
    """The engine's create-container request for one sandbox of ``settings``."""
    tmpfs = settings.tmpfs_mb << 20
    memory = settings.memory_limit_mb << 20
    rlimits = RLimits(cpu_s=cpu_seconds, file_bytes=tmpfs)
    ulimits = {"cpu": rlimits.cpu_s, "fsize": rlimits.file_bytes, "nofile": rlimits.nofile,
               "core": 0}
    env = {**SANDBOX_ENV, "PATH": RUNNER_PATH, "PYTHONPATH": KERNEL_PATH}
    return {
        "Image": settings.docker_image,
        "Cmd": ["cjudge-sandbox"],
        "User": USER,
        "Env": [f"{key}={value}" for key, value in env.items()],
        "WorkingDir": "/tmp",
        "Hostname": "judge",
        "Labels": {LABEL: owner},
        "AttachStdin": True, "AttachStdout": True, "AttachStderr": True,
        "OpenStdin": True, "StdinOnce": True, "Tty": False,
        "NetworkDisabled": True,
        "HostConfig": {
            "NetworkMode": "none",
            "ReadonlyRootfs": True,
            "Tmpfs": {"/tmp": f"rw,nosuid,nodev,size={tmpfs},mode=1777"},
            "ShmSize": tmpfs,
            "IpcMode": "private",
            "Memory": memory,
            "MemorySwap": memory,
            "PidsLimit": settings.pids_limit,
            "NanoCpus": int(settings.cpu_quota * 1e9),
            "CpuShares": WARM_CPU_SHARES,
            "CapDrop": ["ALL"],
            "SecurityOpt": ["no-new-privileges"],
            "Init": False,  # the runner is PID 1: no other process may hold the channel
            "AutoRemove": True,
            "LogConfig": {"Type": "none", "Config": {}},
            "Ulimits": [{"Name": name, "Soft": value, "Hard": value}
                        for name, value in ulimits.items()],
        },
    }


class DockerSandbox(Sandbox):
    """A runner in its own container, attached and waiting (warm) for its one job. The same
    interface as :class:`~server.sandbox.process.SandboxProcess`."""

    def __init__(self, engine: Engine, settings: Settings, config: dict[str, Any]) -> None:
        self.engine = engine
        self.settings = settings
        self.closed = False
        self.stop: SandboxStop | None = None
        self.created = time.time()
        self.id: str = engine.call("POST", "/containers/create", config)["Id"]
        try:
            self.stream = engine.attach(self.id)
        except EngineError:
            self._remove()
            raise
        try:
            exit_status = engine.wait_removed(self.id)
        except EngineError:
            self.stream.close()
            self._remove()
            raise
        self.exit_status: int | None = None
        self.removed = threading.Event()
        threading.Thread(target=self._wait_removed, args=(exit_status,), daemon=True).start()
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        self.stream.split(result_w, output_w)
        self.channel = LineChannel(result_r, settings.result_limit_bytes)
        self.output = Drain(os.fdopen(output_r, "rb"), LOG_KEEP, settings.stdout_limit_bytes,
                            self.kill)
        try:
            engine.call("POST", f"/containers/{self.id}/start")
        except EngineError:
            self.close()
            self._remove()  # never started: the engine does not remove it by itself
            raise

    def wait_ready(self) -> None:
        """Block until the runner says it is ready; ``SandboxError`` if it does not."""
        await_ready(self.channel, self.settings.ready_timeout_s, self.log, SandboxError)

    def send(self, payload: dict[str, Any]) -> None:
        """Give the runner its one job, at normal CPU weight. Stdin stays open: the container
        ends itself when the attachment closes, so it cannot outlive a worker that dies."""
        line = json.dumps(payload).encode() + b"\n"
        self.engine.call("POST", f"/containers/{self.id}/update", {"CpuShares": RUN_CPU_SHARES})
        threading.Thread(target=self._send, args=(line,), daemon=True).start()

    def _protocol_broken(self, exc: ChannelError) -> None:
        """A garbled channel is reported as the judge's fault here (retried)."""
        raise SandboxError(f"{exc}; {self.log()}") from None

    def kill(self) -> None:
        """Kill the container, which the engine then removes (safe to call from any thread,
        repeatedly)."""
        try:
            self.engine.call("POST", f"/containers/{self.id}/kill", query={"signal": "KILL"},
                             ok=(204, 404, 409))
        except EngineError as exc:
            log.warning("could not kill sandbox container %s: %s", self.id[:12], exc)

    def close(self) -> None:
        """Kill the container and close the streams. Even if the engine does not answer, the
        container kills itself once its stdin closes, and the engine removes it."""
        if self.closed:
            return
        self.closed = True
        self.stream.close()
        self.kill()
        self.channel.close()

    def oom_kills(self) -> int:
        """How many of the container's processes the OOM killer has killed so far."""
        return self.engine.count_events({"container": [self.id], "event": ["oom"]},
                                        self.created - 1)

    def log(self) -> str:
        """The container's state and the head of what it printed, for the judge log."""
        return f"container {self.id[:12]}; output: {self.output.text(timeout=0.5)[-4000:]}"

    def _why_stopped(self) -> SandboxStop | None:
        """Classify an early end: the learner's output, memory, a signal (the learner's code
        killed the runner), or None when the runner exited by itself (the judge's fault)."""
        if not self.removed.wait(2.0):
            self.kill()
            self.removed.wait(self.engine.timeout_s)
        if self.output.flooded:
            return "output_limit"
        if self.oom_kills():
            return "memory_limit"
        return "killed" if (self.exit_status or 0) > 128 else None

    def _wait_removed(self, exit_status: Callable[[], int | None]) -> None:
        self.exit_status = exit_status()
        self.removed.set()

    def _send(self, line: bytes) -> None:
        try:
            self.stream.write(line)
        except OSError:
            pass  # the container is gone; next_raw sees that on the result channel

    def _remove(self) -> None:
        try:
            self.engine.call("DELETE", f"/containers/{self.id}", query={"force": 1},
                             ok=(204, 404, 409))
        except EngineError as exc:
            log.warning("could not remove sandbox container %s: %s", self.id[:12], exc)


def connect(settings: Settings) -> Engine:
    """The engine at ``settings.docker_socket``, checked to have the runner image."""
    engine = Engine(str(settings.docker_socket))
    engine.call("GET", f"/images/{settings.docker_image}/json", ok=(200,))
    return engine


def sandbox_factory(settings: Settings, cpu_seconds: int) -> Callable[[], DockerSandbox]:
    """What a pool calls to start one sandbox container (the engine checked first)."""
    engine = connect(settings)
    config = container_config(settings, f"{socket.gethostname()}:{os.getpid()}", cpu_seconds)
    return lambda: DockerSandbox(engine, settings, config)


def make_pool(settings: Settings, cpu_seconds: int,
              on_change: Callable[[], None] | None = None) -> WarmPool:
    """A warm pool of sandbox containers (``on_change``: see ``sandbox.make_pool``)."""
    return WarmPool(sandbox_factory(settings, cpu_seconds), settings.pool_size,
                    settings.ready_timeout_s, settings.sandbox_start_attempts,
                    settings.sandbox_backoff_max_s, on_change)


def preflight(settings: Settings) -> tuple[list[str], str]:
    """What is missing to start sandbox containers, and a line on the isolation in effect.
    A server with no embedded workers starts none: separate workers grade."""
    if settings.workers == 0:
        return [], "docker sandbox: submissions are graded by separate workers"
    try:
        engine = connect(settings)
    except EngineError as exc:
        return [f"{exc} (the docker sandbox needs the engine's socket and the runner image "
                f"{settings.docker_image}: see docs/deploy.md)"], ""
    return [], (f"docker containers of {settings.docker_image} "
                f"(engine {engine.version.get('Version', '?')})")
