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

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from docker.errors import DockerException
from docker.types import ContainerConfig, HostConfig, LogConfig, Ulimit
from requests.exceptions import RequestException

import docker
from cjudge.switch import packed

from ..settings import Settings
from .cgroups import counter
from .channel import ChannelError, FrameChannel, await_ready
from .docker_engine import GONE, EngineError, attach, checked, connect
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
#: the container's memory cgroup counters, as mounted in it (cgroup v2, then v1): one exists
OOM_COUNTERS = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")


def container_config(settings: Settings, owner: str, cpu_seconds: int,
                     api_version: str) -> ContainerConfig:
    """The engine's create-container request for one sandbox of ``settings`` (docker-py's
    types, checked against the engine's ``api_version``)."""
    tmpfs = settings.tmpfs_mb << 20
    memory = settings.memory_limit_mb << 20
    rlimits = RLimits(cpu_s=cpu_seconds, file_bytes=tmpfs)
    ulimits = {"cpu": rlimits.cpu_s, "fsize": rlimits.file_bytes, "nofile": rlimits.nofile,
               "core": 0}
    host = HostConfig(
        api_version,
        network_mode="none",
        read_only=True,
        tmpfs={"/tmp": f"rw,nosuid,nodev,size={tmpfs},mode=1777"},
        shm_size=tmpfs,
        ipc_mode="private",
        mem_limit=memory,
        memswap_limit=memory,
        pids_limit=settings.pids_limit,
        nano_cpus=int(settings.cpu_quota * 1e9),
        cpu_shares=WARM_CPU_SHARES,
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        init=False,  # the runner is PID 1: no other process may hold the channel
        auto_remove=True,
        log_config=LogConfig(type="none"),
        ulimits=[Ulimit(name=name, soft=value, hard=value) for name, value in ulimits.items()],
    )
    return ContainerConfig(
        api_version, settings.docker_image, ["cjudge-sandbox"],
        user=USER,
        environment={**SANDBOX_ENV, "PATH": RUNNER_PATH, "PYTHONPATH": KERNEL_PATH},
        working_dir="/tmp",
        hostname="judge",
        labels={LABEL: owner},
        stdin_open=True,  # and attached: stdin, stdout and stderr; stdin closes once
        network_disabled=True,
        host_config=host,
    )


class DockerSandbox(Sandbox):
    """A runner in its own container, attached and waiting (warm) for its one job. The same
    interface as :class:`~server.sandbox.process.SandboxProcess`."""

    def __init__(self, api: docker.APIClient, settings: Settings, config: ContainerConfig) -> None:
        self.api = api
        self.settings = settings
        self.closed = False
        self.stop: SandboxStop | None = None
        self.created = time.time()
        self.id: str = checked("create", api.create_container_from_config, config)["Id"]
        try:
            self.stream = attach(api, self.id)
        except EngineError:
            self._remove()
            raise
        self.removed = threading.Event()
        threading.Thread(target=self._wait_removed, daemon=True).start()
        result_r, result_w = os.pipe()
        output_r, output_w = os.pipe()
        self.stream.split(result_w, output_w)
        self.channel = FrameChannel(result_r, settings.result_limit_bytes)
        self.output = Drain(os.fdopen(output_r, "rb"), LOG_KEEP, settings.stdout_limit_bytes,
                            self.kill)
        try:
            checked("start", api.start, self.id)
        except EngineError:
            self.close()
            self._remove()  # never started: the engine does not remove it by itself
            raise

    def wait_ready(self) -> None:
        """Block until the runner says it is ready; ``SandboxError`` if it does not."""
        await_ready(self.channel, self.settings.ready_timeout_s, self.log, SandboxError)

    def _give(self, frame: list[packed.Raw]) -> None:
        """Hand the runner its request, at normal CPU weight. Stdin stays open: the container
        ends itself when the attachment closes, so it cannot outlive a worker that dies."""
        checked("update", self.api.update_container, self.id, cpu_shares=RUN_CPU_SHARES)
        threading.Thread(target=self._send, args=(frame,), daemon=True).start()

    def _protocol_broken(self, exc: ChannelError) -> None:
        """A garbled channel is reported as the judge's fault here (retried)."""
        raise SandboxError(f"{exc}; {self.log()}") from None

    def kill(self) -> None:
        """Kill the container, which the engine then removes (safe to call from any thread,
        repeatedly)."""
        try:
            checked("kill", self.api.kill, self.id, signal="KILL")
        except EngineError as exc:
            if exc.status not in GONE:
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
        """How many of the container's processes the OOM killer has killed so far: the kernel's
        own counter, read in the container. The kernel raises it before it signals the victim,
        so it already counts a rank the runner saw die; the engine's ``oom`` event comes later,
        by a delay without bound on a loaded machine. When the container cannot run the
        reader (gone, or out of processes), the engine's events are what is left."""
        try:
            run = checked("exec", self.api.exec_create, self.id, ["cat", *OOM_COUNTERS],
                          stdout=True, stderr=False)
            text: bytes = checked("exec", self.api.exec_start, run["Id"])
        except EngineError:
            return len(self.events("oom"))
        return counter(text.decode(errors="replace"), "oom_kill")

    def events(self, *actions: str) -> list[dict[str, Any]]:
        """What the engine logged of the container until now, of these ``actions`` (``oom``: a
        process killed for memory; ``die``: its end, with the exit code)."""
        # ``until`` to the microsecond (an OOM kill a moment ago counts): the engine takes
        # fractions of a second, which docker-py passes on although its stubs say int
        until: Any = time.time()
        return checked("events", lambda: list(self.api.events(
            since=int(self.created) - 1, until=until,
            filters={"container": self.id, "event": list(actions)}, decode=True)))

    def log(self) -> str:
        """The container's state and the head of what it printed, for the judge log."""
        return f"container {self.id[:12]}; output: {self.output.text(timeout=0.5)[-4000:]}"

    def _why_stopped(self) -> SandboxStop | None:
        """Classify an early end: the learner's output, memory, a signal (the learner's code
        killed the runner), or None when the runner exited by itself (the judge's fault)."""
        if not self.removed.wait(2.0):
            self.kill()
            self.removed.wait(self.api.timeout)
        if self.output.flooded:
            return "output_limit"
        events = self.events("oom", "die")
        if any(event.get("Action") == "oom" for event in events):
            return "memory_limit"
        codes = [int(event.get("Actor", {}).get("Attributes", {}).get("exitCode", 0))
                 for event in events if event.get("Action") == "die"]
        return "killed" if max(codes, default=0) > 128 else None

    def _wait_removed(self) -> None:
        """Set ``removed`` once the engine has removed the container (at once if it is gone
        already, or the engine cannot tell)."""
        try:
            self.api.wait(self.id, timeout=None, condition="removed")
        except (DockerException, RequestException):
            pass
        self.removed.set()

    def _send(self, frame: list[packed.Raw]) -> None:
        try:
            for part in frame:
                self.stream.write(part)
        except OSError:
            pass  # the container is gone; next_raw sees that on the result channel

    def _remove(self) -> None:
        try:
            checked("remove", self.api.remove_container, self.id, force=True)
        except EngineError as exc:
            if exc.status not in GONE:
                log.warning("could not remove sandbox container %s: %s", self.id[:12], exc)


def engine(settings: Settings) -> docker.APIClient:
    """The engine at ``settings.docker_socket``, checked to have the runner image."""
    api = connect(str(settings.docker_socket))
    checked(f"image {settings.docker_image}", api.inspect_image, settings.docker_image)
    return api


def sandbox_factory(settings: Settings, cpu_seconds: int) -> Callable[[], DockerSandbox]:
    """What a pool calls to start one sandbox container (the engine checked first)."""
    api = engine(settings)
    config = container_config(settings, f"{socket.gethostname()}:{os.getpid()}", cpu_seconds,
                              api.api_version)
    return lambda: DockerSandbox(api, settings, config)


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
        api = engine(settings)
        version = checked("version", api.version).get("Version", "?")
    except EngineError as exc:
        return [f"{exc} (the docker sandbox needs the engine's socket and the runner image "
                f"{settings.docker_image}: see docs/deploy.md)"], ""
    return [], f"docker containers of {settings.docker_image} (engine {version})"
