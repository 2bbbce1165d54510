"""Turning a sandbox that would not start into the fix an operator should make."""

from __future__ import annotations

import re
from pathlib import Path

from .launch import KERNEL_DIR, python_binds

USERNS = ("user namespaces are off: allow them (sysctl kernel.unprivileged_userns_clone=1, or "
          "kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu) or run the server as root")


def explain_start_failure(message: str, python: str, sandboxed: bool) -> str:
    """The fix for a runner that did not start, from its error ``message``; ``python`` is the
    interpreter it was started with."""
    if not Path(python).exists():
        return (f"the runner's interpreter {python} does not exist: set CJUDGE_RUNNER_PYTHON to "
                "PREFIX/bin/python of an installation with torch (unset, the server's own)")
    visible = ", ".join(sorted({str(target) for _, target in python_binds(python)} | {"/usr"}))
    missing = re.search(r"execvp (\S+): No such file or directory", message) or re.search(
        r"Can't find source path (\S+)", message)
    if missing:
        path = missing.group(1).rstrip(":")
        return (f"the sandbox cannot see {path}: inside it only {visible} and the kernel are "
                "bound. If it is the interpreter, make sure it exists; if your .venv is a "
                "symlink or lies outside those directories, create the venv where it is used "
                "(python -m venv .venv, no symlink) or set CJUDGE_RUNNER_PYTHON to "
                "PREFIX/bin/python of an installation with torch")
    module = re.search(r"No module named '([^']+)'", message)
    if module and module.group(1).startswith("cjudge"):
        return (f"the kernel at {KERNEL_DIR} is incomplete ({module.group(1)!r} is missing): "
                "a partial checkout or an unfinished change; check it out whole again")
    if module:
        return (f"the sandbox's Python ({python}) cannot import {module.group(1)!r}: install "
                "the project into it (scripts/setup.sh) or set CJUDGE_RUNNER_PYTHON to an "
                f"interpreter that has torch; the kernel is bound from {KERNEL_DIR}")
    if "Permission denied" in message:
        return ("the sandbox's user cannot read or run something it needs (" + message[:200]
                + "): make the Python installation and the repository readable by others "
                "(chmod -R o+rX), or install Python outside /root")
    if sandboxed and re.search(r"uid map|setting up uid|Operation not permitted|"
                               r"No permissions to create new namespace|user namespace", message):
        return USERNS
    if "timeout" in message or "not ready in time" in message:
        return ("the runner did not say it was ready within CJUDGE_READY_TIMEOUT_S: a slow or "
                "overloaded machine (importing torch takes seconds); raise the timeout or "
                "lower CJUDGE_WORKERS / CJUDGE_POOL_SIZE")
    return "see the runner's error above; `python practice/judge.py doctor` checks this machine"
