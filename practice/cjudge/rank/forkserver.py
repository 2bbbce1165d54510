"""Sandboxes forked from one that has imported torch: ``python -m cjudge.rank.forkserver``.

What the server's fork-server sandbox runs (``server/sandbox/forked.py``). It imports torch and
the real runtime once, then, for each sandbox the host asks for on its control socket (fd 3),
forks a child that is given its own descriptors (stdin, stdout, stderr, result channel,
handshake), tells the host its pid over the handshake socket (``SCM_CREDENTIALS``: the kernel
writes the pid as the host sees it) and waits until the host has moved it into the sandbox's
cgroups. The child then enters fresh user, mount, pid, network, IPC, UTS and cgroup namespaces and
forks the sandbox's first process (PID 1 of its pid namespace), which mounts its own /proc (the
kernel knobs under it read-only), /tmp, /dev/shm and /dev/pts, forbids further user namespaces,
drops every capability, sets the rlimits and environment it is told, and serves one job as
:mod:`cjudge.rank.runner` does. The child reports that process's exit status on the handshake
socket. Nothing of any job ever enters the fork server: it only passes descriptors on.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import gc
import json
import os
import resource
import signal
import socket
import struct
import sys
import traceback
from typing import TypedDict, cast

from ..real.huge_pages import collapse_anonymous_memory

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER = 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
              | CLONE_NEWUTS | CLONE_NEWCGROUP)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 0x4000, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
LINUX_CAPABILITY_VERSION_3 = 0x20080522
#: the kernel knobs under /proc a sandbox may read but never write (bubblewrap's list and ours)
PROC_READ_ONLY = ("sys", "sysrq-trigger", "fs", "irq", "bus")
#: descriptors a request carries, in this order; the sandbox's result channel becomes fd 3
FDS = ("stdin", "stdout", "stderr", "result", "handshake")
RESULT_FD = 3


class SandboxAsk(TypedDict):
    """What the host asks of one sandbox: its /tmp's size, its rlimits, its environment."""

    tmpfs_bytes: int
    rlimits: dict[str, int]
    env: dict[str, str]

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    """Raise ``OSError`` for a libc call that failed."""
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    """mount(2)."""
    def enc(text: str | None) -> bytes | None:
        return text.encode() if text is not None else None
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _enter_namespaces() -> None:
    """Fresh user, mount, pid, network, IPC, UTS and cgroup namespaces (the sandbox's cgroup its
    root), the same uid and gid inside."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(NAMESPACES), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def _mount_private_dirs(tmpfs_bytes: int) -> None:
    """This pid namespace's own /proc (its knobs read-only), and fresh /tmp, /dev/shm and
    /dev/pts: nothing mounted writable is shared with any other sandbox."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _write("/proc/sys/user/max_user_namespaces", "0")  # none below this one, ever
    for knob in PROC_READ_ONLY:
        path = f"/proc/{knob}"
        if os.path.exists(path):
            _mount(path, path, None, MS_BIND | MS_REC)
            _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmpfs_bytes},mode=1777")
    _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"size={tmpfs_bytes},mode=1777")
    _mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
           "newinstance,ptmxmode=0666,mode=620")


def _loopback_up() -> None:
    """Bring up this network namespace's loopback interface (its only one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh14x", b"lo", 0)
        flags = struct.unpack("16sh14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | IFF_UP))


def _drop_capabilities() -> None:
    """No capability now or ever (bounding set emptied, no exec may grant one)."""
    for cap in range(64):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # fails past the last capability: fine
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def _take_descriptors(fds: dict[str, int]) -> None:
    """stdin, stdout and stderr become the sandbox's, the result channel fd 3; no other
    descriptor stays open."""
    for target, name in enumerate(("stdin", "stdout", "stderr", "result")):
        os.dup2(fds[name], target, inheritable=False)
    os.set_inheritable(RESULT_FD, True)
    os.closerange(RESULT_FD + 1, os.sysconf("SC_OPEN_MAX"))


def _set_limits(rlimits: dict[str, int]) -> None:
    """The sandbox's rlimits (names of ``resource.RLIMIT_*``, lower case), at nice 10."""
    for name, value in rlimits.items():
        resource.setrlimit(getattr(resource, f"RLIMIT_{name.upper()}"), (value, value))
    os.nice(10)


def _sandbox_main(ask: SandboxAsk, fds: dict[str, int]) -> int:
    """The sandbox's PID 1: confine itself as its request says, then serve one job."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
    _mount_private_dirs(ask["tmpfs_bytes"])
    socket.sethostname("judge")
    _loopback_up()
    os.setsid()
    _take_descriptors(fds)
    _set_limits(ask["rlimits"])
    os.environ.clear()
    os.environ.update(ask["env"])
    os.chdir("/tmp")
    _drop_capabilities()
    from .runner import serve
    return serve(RESULT_FD, "fork")


def _wait_for_host(handshake: socket.socket) -> bool:
    """Tell the host this process's pid; whether it then moved it into the sandbox's cgroups."""
    creds = struct.pack("3i", os.getpid(), os.getuid(), os.getgid())
    handshake.sendmsg([b"pid"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, creds)])
    return handshake.recv(16) == b"go"


def _child_main(ask: SandboxAsk, fds: dict[str, int]) -> None:
    """A forked child: enter the sandbox's cgroups and namespaces, fork its PID 1, wait for it
    and report its exit status (as ``waitstatus_to_exitcode``: negative for a signal)."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
    handshake = socket.socket(fileno=fds["handshake"])
    if not _wait_for_host(handshake):
        return
    _enter_namespaces()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            handshake.close()
            code = _sandbox_main(ask, fds)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    for name in FDS[:-1]:
        os.close(fds[name])
    _, status = os.waitpid(pid, 0)
    handshake.send(str(os.waitstatus_to_exitcode(status)).encode())


def _fork_sandbox(control: socket.socket, ask: SandboxAsk, fds: dict[str, int]) -> None:
    """Fork one sandbox's child; the descriptors it was given are the child's alone."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.fork() == 0:
        try:
            control.close()
            _child_main(ask, fds)
        except BaseException:  # said where the host reads the sandbox's log: its stderr
            os.write(fds["stderr"], traceback.format_exc().encode())
        finally:
            os._exit(0)
    for fd in fds.values():
        os.close(fd)


def _reap() -> None:
    """Collect the children that have exited."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def prepare() -> None:
    """Import what every sandbox runs (torch above all), once; make forks cheap."""
    from ..real import rank, runtime  # noqa: F401 - imported here, once, for every sandbox
    from . import runner  # noqa: F401

    gc.collect()
    gc.freeze()
    collapse_anonymous_memory()


def serve_forks(control: socket.socket) -> None:
    """Announce readiness, then fork a sandbox per request until the control socket closes."""
    prepare()
    control.send(b'{"ready": true}')
    while True:
        _reap()
        message, received, _, _ = socket.recv_fds(control, 1 << 16, len(FDS))
        if not message:
            return
        if len(received) != len(FDS):
            for fd in received:
                os.close(fd)
            continue
        _fork_sandbox(control, cast(SandboxAsk, json.loads(message)), dict(zip(FDS, received, strict=True)))


def main() -> int:
    """Parse the arguments and serve forks."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--control-fd", type=int, default=3)
    args = p.parse_args()
    serve_forks(socket.socket(fileno=args.control_fd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
