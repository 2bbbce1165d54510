"""Confining a rank before the learner's code runs: it may then reach its peers only through the
process group the judge set up, where the monitor traces every call and the kernel counts every
byte written.

Two kernel mechanisms, applied by the rank to itself (no privilege needed):

* a **Landlock** domain of its own: no rank may ptrace a sibling or open its ``/proc/<pid>``
  files (``mem``, ``fd``), nor signal or reach abstract unix sockets outside its domain; the
  judge, outside every domain, still reads each rank's write counters;
* a **seccomp** filter (libseccomp through ``pyseccomp``), for every thread: no new sockets (the
  group's are made already), no SysV or POSIX message queues and shared memory, no shared
  ``mmap`` (memory written without a counted ``write``), no ``process_vm_readv`` or ``ptrace``.

Where the kernel lacks one of them the rank runs without it; :func:`confinement_gaps` says what
is missing (``judge.py doctor``, the server's log).
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import os

LANDLOCK_CREATE_RULESET, LANDLOCK_RESTRICT_SELF = 444, 446  # the same number on every arch
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_ACCESS_FS_MAKE_SOCK = 1 << 9
LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, LANDLOCK_SCOPE_SIGNAL = 1, 2
PR_SET_NO_NEW_PRIVS = 38
DENIED_SYSCALLS = ("socket", "shmget", "msgget", "semget", "mq_open", "process_vm_readv",
                   "process_vm_writev", "ptrace", "pidfd_getfd")
_LIBC = ctypes.CDLL(None, use_errno=True)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 if it has none."""
    version = _LIBC.syscall(LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return max(version, 0)


def _seccomp_module():  # noqa: ANN202 - pyseccomp has no type hints
    try:
        import pyseccomp
        pyseccomp.system_arch()  # loads libseccomp
        return pyseccomp
    except (ImportError, OSError, RuntimeError):
        return None


def confinement_gaps() -> list[str]:
    """What :func:`confine_rank` cannot apply on this machine (empty: everything)."""
    gaps = []
    abi = landlock_abi()
    if abi == 0:
        gaps.append("Landlock (ranks could read each other's memory through /proc)")
    elif abi < 6:
        gaps.append(f"Landlock scopes (ABI {abi} < 6: ranks could signal the judge)")
    if _seccomp_module() is None:
        gaps.append("seccomp (pip install pyseccomp; libseccomp2): ranks could open side channels")
    return gaps


def _landlock() -> None:
    abi = landlock_abi()
    if abi == 0:
        return
    attr = _RulesetAttr(handled_access_fs=LANDLOCK_ACCESS_FS_MAKE_SOCK)
    size = ctypes.sizeof(ctypes.c_uint64)
    if abi >= 6:
        attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL
        size *= 3
    fd = _LIBC.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        if _LIBC.syscall(LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(fd)


def _seccomp() -> None:
    seccomp = _seccomp_module()
    if seccomp is None:
        return
    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_TSYNC, 1)  # gloo's threads too
    for name in DENIED_SYSCALLS:
        rules.add_rule(denied, name)
    shared = seccomp.Arg(3, seccomp.MASKED_EQ, mmap.MAP_SHARED, mmap.MAP_SHARED)
    rules.add_rule(denied, "mmap", shared)
    rules.load()


def confine_rank() -> None:
    """Confine this process (every thread of it) for good, with what the kernel offers."""
    if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    _landlock()
    _seccomp()
