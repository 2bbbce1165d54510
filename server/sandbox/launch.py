"""Command lines that start the kernel's runner: inside bubblewrap, or as a plain process.

Both go through one small ``sh`` launcher that joins the sandbox's cgroups before anything
runs, sets rlimits (the fallback where cgroups are missing, and per-process caps everywhere)
and lowers the CPU priority, then execs the sandbox.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cjudge

KERNEL_DIR = Path(cjudge.__file__).resolve().parent
SANDBOX_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
    "PYTHONUNBUFFERED": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "GLOO_SOCKET_IFNAME": "lo",
}


@dataclass(frozen=True)
class RLimits:
    """Per-process limits set with ``prlimit`` (they hold with or without cgroups)."""

    cpu_s: int
    file_bytes: int
    nofile: int = 1024
    nproc: int | None = None  # only where no pids cgroup bounds the processes
    address_bytes: int | None = None  # only where no memory cgroup bounds the memory


def missing_tools(sandboxed: bool) -> list[str]:
    """Programs the launcher needs that are not on PATH, each with the package that has it."""
    needed = {"sh": "dash", "prlimit": "util-linux", "nice": "coreutils"}
    if sandboxed:
        needed["bwrap"] = "bubblewrap"
    return [f"{tool} (Debian package {pkg})" for tool, pkg in needed.items()
            if shutil.which(tool) is None]


def runner_argv(result_fd: int, python: str = sys.executable) -> list[str]:
    """The kernel's runner, writing its results to ``result_fd``."""
    return [python, "-m", "cjudge.rank.runner", "--result-fd", str(result_fd)]


def launcher_argv(procs_files: list[Path], rlimits: RLimits, argv: list[str]) -> list[str]:
    """``sh`` that joins the cgroups, applies ``rlimits`` at nice 10 and execs ``argv``."""
    joins = "".join(f"echo $$ > {shlex.quote(str(f))} || exit 97; " for f in procs_files)
    limits = [f"--cpu={rlimits.cpu_s}", f"--fsize={rlimits.file_bytes}",
              f"--nofile={rlimits.nofile}", "--core=0"]
    if rlimits.nproc is not None:
        limits.append(f"--nproc={rlimits.nproc}")
    if rlimits.address_bytes is not None:
        limits.append(f"--as={rlimits.address_bytes}")
    script = f'{joins}exec prlimit {" ".join(limits)} -- nice -n 10 "$@"'
    return ["sh", "-c", script, "sandbox", *argv]


def plain_argv(inner: list[str]) -> list[str]:
    """The runner as an ordinary process (no isolation): only for ``--no-sandbox``."""
    env = {**SANDBOX_ENV, "PYTHONPATH": str(KERNEL_DIR.parent)}
    return ["env", "-i", *(f"{k}={v}" for k, v in env.items()), *inner]


def bwrap_argv(inner: list[str], tmpfs_bytes: int, python: str = sys.executable,
               fork_server: bool = False) -> list[str]:
    """The runner inside bubblewrap: no network but loopback, a read-only view of the kernel,
    Python and its packages, a private size-bounded tmpfs, uid/gid 65534, no capabilities,
    fresh user/pid/ipc/uts/cgroup namespaces, killed with its parent.

    The runner is the sandbox's PID 1 (``--as-pid-1``): bwrap's own reaper would otherwise be
    PID 1, dumpable and holding the sandbox's stdin/stdout/stderr pipes, which any rank could
    reopen for writing through ``/proc/1/fd``; the undumpable runner's cannot be reopened.
    ``python`` is the interpreter ``inner`` runs: its installation is bound in too.

    With ``fork_server``, the sandbox of the fork server (``cjudge.rank.forkserver``), which
    runs no submission itself: each sandbox it forks makes its own namespaces, so it may create
    user namespaces, and it sees the host's /proc whole (the kernel mounts a new /proc in a user
    namespace only where one is fully visible); its /dev is read-only."""
    nested = [] if fork_server else ["--disable-userns"]
    args = ["bwrap", "--unshare-all", "--unshare-user", *nested, "--cap-drop", "ALL",
            "--as-pid-1", "--die-with-parent", "--new-session", "--hostname", "judge",
            "--uid", "65534", "--gid", "65534", "--clearenv"]
    for key, value in {**SANDBOX_ENV, "PYTHONPATH": "/judge"}.items():
        args += ["--setenv", key, value]
    # the private /tmp first: binds below may lie under /tmp (a checkout in /tmp) and go on top
    args += ["--size", str(tmpfs_bytes), "--tmpfs", "/tmp"]
    args += _system_binds()
    for source, target in python_binds(python):
        args += ["--ro-bind", str(source), str(target)]
    args += ["--ro-bind", str(KERNEL_DIR), "/judge/cjudge"]
    for name in ("hosts", "passwd", "group"):
        args += ["--ro-bind", str(_etc_dir() / name), f"/etc/{name}"]
    # the dynamic linker's cache: how the ranks find libseccomp to confine themselves
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    args += _proc_and_dev(fork_server)
    args += ["--remount-ro", "/", "--chdir", "/tmp", "--", *inner]
    return args


def _proc_and_dev(fork_server: bool) -> list[str]:
    """/proc and /dev: the sandbox's own, or the fork server's (see ``bwrap_argv``)."""
    if fork_server:
        return ["--bind", "/proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    args = ["--proc", "/proc"]
    # the sandbox's uid is the server's outside its user namespace: its kernel knobs under /proc
    # (global sysctls such as core_pattern) must not be writable
    for knob in ("sys", "sysrq-trigger", "fs"):
        args += ["--ro-bind-try", f"/proc/{knob}", f"/proc/{knob}"]
    return [*args, "--dev", "/dev"]


def _system_binds() -> list[str]:
    """``/usr`` read-only and the merged-/usr links (or directories) beside it."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", str(top.readlink()), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    return args


def python_binds(python: str = sys.executable) -> list[tuple[Path, Path]]:
    """(source, target) read-only binds that make ``python`` and its packages visible inside the
    sandbox at the paths it is started by: the Python installation and the virtual environment
    (unless under /usr), each at its real path and, where a symlink leads to it (a ``.venv``
    that links elsewhere), at the linked path too; and the prefix of an interpreter outside both
    (``CJUDGE_RUNNER_PYTHON``: ``PREFIX/bin/python``)."""
    prefixes = {Path(sys.base_prefix), Path(sys.prefix)}
    own = Path(python)
    if not any(own.is_relative_to(p) for p in prefixes):
        prefixes.add(own.parent.parent)
    binds: set[tuple[Path, Path]] = set()
    for prefix in prefixes:
        real = prefix.resolve()
        for target in {real, prefix.absolute()}:
            if not target.is_relative_to("/usr"):
                binds.add((real, target))
    return sorted(binds, key=lambda bind: (len(bind[1].parts), bind[1]))


@cache
def _etc_dir() -> Path:
    """A private directory with the few /etc files a sandbox needs (hosts, passwd, group)."""
    etc = Path(tempfile.mkdtemp(prefix="cjudge-etc-"))
    etc.chmod(0o755)
    files = {
        "hosts": "127.0.0.1 localhost judge\n::1 localhost\n",
        "passwd": "nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n",
        "group": "nogroup:x:65534:\n",
    }
    for name, text in files.items():
        (etc / name).write_text(text)
        (etc / name).chmod(0o644)
    return etc
