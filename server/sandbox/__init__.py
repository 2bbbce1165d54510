"""Sandbox backends for the kernel's runner: bubblewrap (default), docker containers
(``docker_backend``), or none (trusted use only)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from ..settings import Settings
from . import docker_backend
from .cgroups import Hierarchies, Limits, discover
from .diagnose import USERNS, explain_start_failure
from .forked import ForkedSandbox, ForkServer
from .launch import RLimits, bwrap_argv, missing_tools
from .pool import PoolHealth, SandboxUnavailable, WarmPool
from .process import Sandbox, SandboxError, SandboxProcess, SandboxSpec

__all__ = ["ForkedSandbox", "PoolHealth", "Sandbox", "SandboxError", "SandboxProcess", "SandboxUnavailable",
           "WarmPool", "make_pool", "preflight", "sandbox_factory"]

#: CPU seconds any one sandboxed process may use (a backstop: wall limits come first)
CPU_SECONDS = 300


def spec_from(settings: Settings, hier: Hierarchies) -> SandboxSpec:
    """The sandbox spec for ``settings``, with rlimits standing in for missing controllers."""
    memory = settings.memory_limit_mb << 20
    controllers = hier.controllers()
    rlimits = RLimits(
        cpu_s=CPU_SECONDS,
        file_bytes=settings.tmpfs_mb << 20,
        nproc=None if "pids" in controllers else settings.pids_limit,
        address_bytes=None if "memory" in controllers else 4 * memory,
    )
    return SandboxSpec(
        sandboxed=settings.sandbox == "bwrap",
        limits=Limits(memory, settings.pids_limit, settings.cpu_quota),
        rlimits=rlimits,
        tmpfs_bytes=settings.tmpfs_mb << 20,
        stdout_limit=settings.stdout_limit_bytes,
        result_limit=settings.result_limit_bytes,
        ready_timeout_s=settings.ready_timeout_s,
        python=settings.runner_python or sys.executable,
    )


def make_pool(settings: Settings, on_change: Callable[[], None] | None = None) -> WarmPool:
    """A warm pool of runners for ``settings``; ``on_change`` is called when its health
    changes (a first failed start, giving up, starting again)."""
    if settings.sandbox == "docker":
        return docker_backend.make_pool(settings, CPU_SECONDS, on_change)
    hier = discover()
    factory, close = sandbox_factory(settings, hier)
    return WarmPool(factory, settings.pool_size, settings.ready_timeout_s,
                    settings.sandbox_start_attempts, settings.sandbox_backoff_max_s, on_change,
                    on_close=close)


def sandbox_factory(settings: Settings, hier: Hierarchies
                    ) -> tuple[Callable[[], Sandbox], Callable[[], None] | None]:
    """What starts one sandbox for ``settings`` (bubblewrap or none), and what to call once no
    more are started: forked by a fork server of their own (``CJUDGE_SANDBOX_FORK``, bwrap
    only), else each an interpreter of its own."""
    spec = spec_from(settings, hier)
    if settings.sandbox == "bwrap" and settings.sandbox_fork:
        server = ForkServer(spec)
        return lambda: ForkedSandbox(server, spec, hier), server.close
    return lambda: SandboxProcess(spec, hier), None


def preflight(settings: Settings, start_runner: bool = True) -> tuple[list[str], str]:
    """What is missing to run the configured sandbox, and a line on the isolation in effect.
    With ``start_runner``, a real runner is started exactly as the workers' pools will start
    theirs, so that what would fail for every submission fails here, with the fix named."""
    if settings.sandbox == "docker":
        problems, isolation = docker_backend.preflight(settings)
        if start_runner and not problems and settings.workers > 0:
            problems += start_one(settings, docker_backend.sandbox_factory(settings, CPU_SECONDS))
        return problems, isolation
    problems = missing_tools(settings.sandbox == "bwrap")
    if settings.sandbox == "bwrap" and not problems:
        problems += _probe_bwrap()
    hier = discover()
    if start_runner and not problems:
        factory, close = sandbox_factory(settings, hier)
        try:
            problems += start_one(settings, factory)
        finally:
            if close is not None:
                close()
    return problems, hier.describe()


def start_one(settings: Settings, factory: Callable[[], Sandbox]) -> list[str]:
    """Start one runner with a pool's ``factory`` and close it: [] if it said it was ready,
    else why not and the fix."""
    sandbox = None
    try:
        sandbox = factory()
        sandbox.wait_ready()
    except (SandboxError, OSError) as exc:
        python = settings.runner_python or sys.executable
        fix = explain_start_failure(str(exc), python, settings.sandbox == "bwrap")
        return [f"a sandbox runner did not start ({exc}).\n    Fix: {fix}"]
    finally:
        if sandbox is not None:
            sandbox.close()
    return []


def _probe_bwrap() -> list[str]:
    """Start a trivial sandbox to prove bubblewrap (and user namespaces) work here."""
    argv = bwrap_argv(["/usr/bin/true"], 1 << 20)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [f"bubblewrap could not start a sandbox: {exc}"]
    if done.returncode != 0:
        return [f"bubblewrap could not start a sandbox ({done.stderr.strip()}); it needs "
                f"user namespaces: {USERNS}"]
    return []
