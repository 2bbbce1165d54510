"""Sandbox backends for the kernel's runner: bubblewrap (default), docker containers
(``docker_backend``), or none (trusted use only)."""

from __future__ import annotations

import subprocess

from ..settings import Settings
from . import docker_backend
from .cgroups import Hierarchies, Limits, discover
from .launch import RLimits, bwrap_argv, missing_tools
from .pool import WarmPool
from .process import SandboxError, SandboxProcess, SandboxSpec

__all__ = ["SandboxError", "SandboxProcess", "WarmPool", "make_pool", "preflight"]

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
    )


def make_pool(settings: Settings) -> WarmPool:
    """A warm pool of runners for ``settings``."""
    if settings.sandbox == "docker":
        return docker_backend.make_pool(settings, CPU_SECONDS)
    hier = discover()
    spec = spec_from(settings, hier)
    return WarmPool(lambda: SandboxProcess(spec, hier), settings.pool_size,
                    settings.ready_timeout_s)


def preflight(settings: Settings) -> tuple[list[str], str]:
    """What is missing to run the configured sandbox, and a line on the isolation in effect."""
    if settings.sandbox == "docker":
        return docker_backend.preflight(settings)
    if settings.sandbox not in ("bwrap", "none"):
        return [f"CJUDGE_SANDBOX must be 'bwrap', 'docker' or 'none', not {settings.sandbox!r}"], ""
    problems = missing_tools(settings.sandbox == "bwrap")
    if settings.sandbox == "bwrap" and not problems:
        problems += _probe_bwrap()
    return problems, discover().describe()


def _probe_bwrap() -> list[str]:
    """Start a trivial sandbox to prove bubblewrap (and user namespaces) work here."""
    argv = bwrap_argv(["/usr/bin/true"], 1 << 20)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [f"bubblewrap could not start a sandbox: {exc}"]
    if done.returncode != 0:
        return [f"bubblewrap could not start a sandbox ({done.stderr.strip()}); it needs "
                "user namespaces (sysctl kernel.unprivileged_userns_clone=1 on some kernels, "
                "or run as root)"]
    return []
