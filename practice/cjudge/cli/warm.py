"""The warm judge: ``import torch`` once per machine, not once per ``judge.py test``.

Every ``test`` and ``check`` needs torch in the judge (its zygote forks the ranks from it), and
importing it takes about two seconds here, most of a suite's time. The first such command starts
a warm judge in the background: a process that imports torch and the kernel, then waits on a
Unix socket in a private directory (``$CJUDGE_WARM_DIR``, else ``$XDG_RUNTIME_DIR/cjudge-warm``,
else ``/tmp/cjudge-warm-<uid>``; mode 0700). Each command then sends it its arguments, working
directory, environment and its own stdin, stdout and stderr (``SCM_RIGHTS``), and the warm judge
forks a child that runs the command exactly as ``judge.py`` would, printing straight to the
caller's terminal; the caller only waits for its exit status. Ctrl-C reaches the child; if the
caller dies, the child stops.

The child is a fresh judge: it starts its own zygote before reading any exercise, so nothing of
one run is in the memory of the next. The warm judge holds no job, ever. A warm judge serves
only the code it imported: its socket is named by a hash of the kernel's sources, the Python and
the environment variables that shape torch's import, so an edited kernel starts a new one; an
idle one exits after ``CJUDGE_WARM_IDLE_S`` seconds (default 900). ``CJUDGE_WARM=0`` turns it
off; ``judge.py warm`` lists or stops them.

This module's client half imports only the standard library: it runs before anything heavy.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TypedDict

PRACTICE = Path(__file__).resolve().parents[2]
KERNEL = PRACTICE / "cjudge"
#: the commands that import torch, and so go to the warm judge
WARM_COMMANDS = ("test", "check")
#: environment variables read when torch or the kernel is imported: a warm judge serves one set
IMPORT_ENV_PREFIXES = ("PYTHON", "TORCH", "OMP_", "MKL_", "CUDA", "LD_", "CJUDGE_WARM")
IDLE_S = 900.0  # seconds a warm judge waits for a call before it exits (CJUDGE_WARM_IDLE_S)
READY_S = 120.0  # how long a caller waits for a warm judge it started to answer
#: modules a child would import alike: imported once, by the warm judge (none reads the
#: environment or the terminal when imported; ``cli.commands`` and ``cli.workspace`` do, so
#: each child imports those itself)
PRELOAD = ("rich.console", "rich.markdown", "rich.table", "rich.syntax", "rich.progress",
           "cjudge.real.runtime", "cjudge.real.zygote", "cjudge.sim.runtime", "cjudge.grading.submission",
           "cjudge.grading.grade", "cjudge.exercise.exercises", "cjudge.view.timeline", "cjudge.cli.render",
           "cjudge.cli.trace_view", "cjudge.cli.authoring")


class Refused(Exception):
    """No warm judge can serve this call (the caller then runs the command itself)."""


class WarmRequest(TypedDict):
    """A call to the warm judge (:func:`run_warm` sends it, :func:`serve` runs it): the
    caller's arguments, directory, environment and umask."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    umask: int


def wanted(argv: list[str]) -> bool:
    """Whether ``argv`` should run in a warm judge."""
    return os.environ.get("CJUDGE_WARM", "1") != "0" and bool(argv) and \
        argv[0] in WARM_COMMANDS and not {"-h", "--help"} & set(argv)


def home() -> Path:
    """The private directory of this user's warm judges, made if missing; ``Refused`` when it
    is not this user's alone."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(os.environ.get("CJUDGE_WARM_DIR") or (
        Path(runtime) / "cjudge-warm" if runtime else f"/tmp/cjudge-warm-{os.getuid()}"))
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        info = base.lstat()
    except OSError as exc:
        raise Refused(f"cannot make {base}: {exc}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise Refused(f"{base} is not a directory of this user's alone")
    return base


def code_key() -> str:
    """What a warm judge has imported, as a short hash: the kernel's sources (names, sizes,
    modification times), the interpreter, and the environment that shapes the imports."""
    digest = hashlib.sha256(f"{sys.executable}\0{sys.version}".encode())
    for path in sorted(KERNEL.rglob("*.py")):
        info = path.stat()
        digest.update(f"{path.relative_to(KERNEL)}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    for name in sorted(os.environ):
        if name.startswith(IMPORT_ENV_PREFIXES):
            digest.update(f"{name}={os.environ[name]}\0".encode())
    return digest.hexdigest()[:20]


# ---- the caller's side ------------------------------------------------------------------------


def run_warm(argv: list[str]) -> int:
    """Run ``argv`` in this user's warm judge (started if there is none); its exit status.
    ``Refused`` if no warm judge can take it."""
    try:
        path = home() / f"{code_key()}.sock"
    except OSError as exc:  # a kernel file vanished while being hashed (an edit), say
        raise Refused(str(exc)) from None
    sock = _connect(path)
    if sock is None:
        started = _start(path)
        sock = _connect(path, wait_s=READY_S, starting=started)
        if sock is None:
            raise Refused(f"the warm judge did not start (its log: {path.with_suffix('.log')})")
    with sock:
        request: WarmRequest = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ),
                                "umask": _umask()}
        try:
            socket.send_fds(sock, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
        except OSError as exc:
            raise Refused(f"the warm judge did not take the call: {exc}") from None
        return _await_child(sock)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _connect(path: Path, wait_s: float = 0.0,
             starting: subprocess.Popen[bytes] | None = None) -> socket.socket | None:
    """A connection to the warm judge at ``path``, trying for ``wait_s`` (less if the one
    ``starting`` exits first: it failed to warm up); None if none answers (a stale socket left
    by one that died is removed)."""
    deadline = time.monotonic() + wait_s
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            if wait_s == 0.0 and path.exists():
                path.unlink(missing_ok=True)  # its judge is gone
        except OSError as exc:  # e.g. a directory whose path is too long for a socket
            sock.close()
            raise Refused(f"cannot reach {path}: {exc}") from None
        if time.monotonic() >= deadline or (starting is not None and starting.poll() is not None):
            return None  # nobody listens, and the one starting is gone
        time.sleep(0.02)


def _start(path: Path) -> subprocess.Popen[bytes]:
    """Start a warm judge for ``path`` in the background (its own session; output to a log)."""
    if sys.stderr.isatty():
        print("judge.py: starting a warm judge (torch is imported once; later runs skip it; "
              "CJUDGE_WARM=0 turns this off) · 启动常驻评测进程", file=sys.stderr)
    with open(path.with_suffix(".log"), "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "cjudge.cli.warm", str(path)],
                                cwd=PRACTICE, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True,
                                env={**os.environ, "PYTHONPATH": str(PRACTICE)})


def _await_child(sock: socket.socket) -> int:
    """Wait for the child's exit status, passing it Ctrl-C (and SIGTERM) meanwhile."""
    reader = sock.makefile("rb")
    try:
        hello = reader.readline()
    except OSError:  # reset: it died before starting the run
        hello = b""
    if not hello:
        raise Refused("the warm judge closed the call before starting it")
    child = json.loads(hello)["pid"]

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    # what this process ignores (SIGINT in a background job of a script, say) it leaves ignored,
    # as a run here would
    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        last = reader.readline()
    except OSError:
        last = b""
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if not last:
        print("judge.py: the warm judge's run ended without an exit status "
              "(评测进程异常结束)", file=sys.stderr)
        return 1
    return int(json.loads(last)["exit"])


# ---- the warm judge ---------------------------------------------------------------------------


def serve(path: Path) -> None:
    """Listen on ``path`` (before importing anything heavy, so that callers queue), import torch
    and the kernel, then fork one child per call until idle for ``CJUDGE_WARM_IDLE_S``."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
    except OSError:
        return  # another warm judge for this code got there first
    listener.listen(64)
    path.with_suffix(".pid").write_text(str(os.getpid()))
    # the caller's directory is no place to import from: only the kernel's
    sys.path[:] = [str(PRACTICE), *(p for p in sys.path if p not in ("", ".", str(PRACTICE)))]
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        _warm_up()
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
        listener.settimeout(_idle_s())
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return
            _fork_child(conn, listener)
    finally:
        if path.exists() and path.with_suffix(".pid").read_text() == str(os.getpid()):
            path.unlink(missing_ok=True)
            path.with_suffix(".pid").unlink(missing_ok=True)


def _idle_s() -> float:
    try:
        return max(1.0, float(os.environ.get("CJUDGE_WARM_IDLE_S", IDLE_S)))
    except ValueError:
        return IDLE_S


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _warm_up() -> None:
    """Import what every child needs, and get the memory ready to be forked cheaply."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    # these read the environment or the terminal when imported: each child imports its own
    assert not {"cjudge.cli.commands", "cjudge.cli.workspace"} & set(sys.modules)
    from ..real.zygote import ready_to_fork

    ready_to_fork()


def _fork_child(conn: socket.socket, listener: socket.socket) -> None:
    """Take one call: its request and descriptors; a child runs it, this process goes on."""
    try:
        conn.settimeout(10)
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        request = json.loads(message)
    except (OSError, ValueError):
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        status = 70
        try:
            listener.close()
            status = _child(conn, fds, request)
        finally:
            os._exit(status)
    for fd in fds:
        os.close(fd)
    conn.close()


def _child(conn: socket.socket, fds: list[int], request: WarmRequest) -> int:
    """Become the caller's ``judge.py``: its descriptors, directory, environment; run, report."""
    for signum in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    # SIGINT is how this call stops (the caller's Ctrl-C, forwarded; the caller gone): never
    # ignored, though the warm judge may have been started by a process that ignores it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own streams
    sys.stdout = open(1, "w", closefd=False, buffering=1 if os.isatty(1) else -1)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(request["umask"])
    sys.argv = ["judge.py", *request["argv"]]
    conn.settimeout(None)
    conn.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
    threading.Thread(target=_stop_when_caller_goes, args=(conn,), daemon=True).start()
    from .main import main

    try:
        status = main(request["argv"])
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if not isinstance(exc.code, int | None):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        status = 130
    sys.stdout.flush()
    sys.stderr.flush()
    conn.sendall(json.dumps({"exit": status}).encode() + b"\n")
    return status


def _stop_when_caller_goes(conn: socket.socket) -> None:
    """The caller sends nothing more: end of stream means it is gone, so stop like Ctrl-C."""
    try:
        while conn.recv(64):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGINT)


# ---- judge.py warm ----------------------------------------------------------------------------


def running() -> list[tuple[str, int]]:
    """This user's warm judges: (code key, process id)."""
    found = []
    try:
        base = home()
    except Refused:
        return []
    for pid_file in base.glob("*.pid"):
        try:
            pid = int(pid_file.read_text())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if b"cjudge.cli.warm" in cmdline:
            found.append((pid_file.stem, pid))
    return found


def stop_all() -> int:
    """Stop every warm judge of this user (in ``CJUDGE_WARM_DIR`` if set); how many."""
    judges = running()
    for _, pid in judges:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    return len(judges)


def cmd_warm(action: str) -> int:
    """``judge.py warm [status|stop]``: list this user's warm judges, or stop them all."""
    if action == "stop":
        stopped = stop_all()
        print(f"stopped {stopped} warm judge(s) · 已停止 {stopped} 个常驻评测进程")
        return 0
    judges, current = running(), code_key()
    if not judges:
        print("no warm judge is running; the next test or check starts one · 没有常驻评测进程")
    for key, pid in judges:
        which = " (current code)" if key == current else " (older code; exits when idle)"
        print(f"warm judge {key} pid {pid}{which}")
    return 0


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
