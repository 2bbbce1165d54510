"""Confining a rank before the learner's code runs: it may then reach its peers only through the
process group the judge set up, where the monitor traces every call and the kernel counts every
byte written.

Two kernel mechanisms, applied by the rank to itself (no privilege needed):

* a **Landlock** domain of its own: no rank may ptrace a sibling or open its ``/proc/<pid>``
  files, nor signal or reach abstract unix sockets outside its domain (the judge, outside every
  domain, still reads each rank's write counters); it may read anything but ``/proc`` (its own
  ``/proc/<pid>`` and ``/proc/cpuinfo`` excepted) and create, write, rename, link or delete
  nothing;
* a **seccomp** filter (libseccomp through ``pyseccomp``), for every thread: no new sockets (the
  group's are made already), no SysV or POSIX message queues and shared memory, no shared
  ``mmap`` (memory written without a counted ``write``), no ``process_vm_readv`` or ``ptrace``,
  and none of what changes a file without writing to it (modes, owners, times, extended
  attributes, locks).

Where the kernel lacks one of them the rank runs without it; :func:`confinement_gaps` says what
is missing (``judge.py doctor``, the server's log).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import mmap
import os
from types import ModuleType
from typing import Any, cast

from .process_flags import LIBC, forbid_new_privileges

# the same syscall numbers on every architecture
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_READ_FILE, FS_READ_DIR = 1 << 2, 1 << 3
#: ABI 1's rights to change the file system (write, remove, make any kind of file), then REFER
#: (ABI 2: rename and link across directories) and TRUNCATE (ABI 3)
FS_CHANGES = {1: 0b1_1111_1111_0010, 2: 1 << 13, 3: 1 << 14}
LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, LANDLOCK_SCOPE_SIGNAL = 1, 2
DENIED_SYSCALLS = (
    "socket", "shmget", "msgget", "semget", "mq_open", "process_vm_readv", "process_vm_writev",
    "ptrace", "pidfd_getfd",
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "removexattr", "lremovexattr", "fremovexattr", "flock",
)
#: fcntl commands that lock or lease a file (F_SETLK, F_SETLKW, F_OFD_SETLK(W), F_SETLEASE)
DENIED_FCNTLS = (6, 7, 37, 38, 1024)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 if it has none."""
    version: int = LIBC.syscall(LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    return max(version, 0)


def _load_seccomp() -> ModuleType | None:
    """pyseccomp with libseccomp loaded, or None. Loaded once, in the judge, before any rank is
    forked: finding the library runs ``ldconfig``, which a confined rank could not."""
    try:
        import pyseccomp
        pyseccomp.system_arch()
        return cast(ModuleType, pyseccomp)
    except (ImportError, OSError, RuntimeError):
        return None


_SECCOMP = _load_seccomp()


def confinement_gaps() -> list[str]:
    """What :func:`confine_rank` cannot apply on this machine (empty: everything)."""
    gaps = []
    abi = landlock_abi()
    if abi == 0:
        gaps.append("Landlock (ranks could read each other's memory through /proc)")
    elif abi < 6:
        gaps.append(f"Landlock scopes (ABI {abi} < 6: ranks could signal the judge)")
    if _SECCOMP is None:
        gaps.append("seccomp (pip install pyseccomp; libseccomp2): ranks could open side channels")
    return gaps


def _readable_roots() -> list[str]:
    """What a rank may read: everything under ``/`` but ``/proc``, its own ``/proc/<pid>``, and
    ``/proc/cpuinfo`` (torch's cpuinfo reads it at a rank's first operator of some kinds)."""
    return ([f"/{name}" for name in os.listdir("/") if name != "proc"] +
            [f"/proc/{os.getpid()}", "/proc/cpuinfo"])


def _allow_reading(ruleset: int, path: str) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a dangling link, say: nothing to read there
    try:
        is_dir = os.path.isdir(f"/proc/self/fd/{fd}")
        rule = _PathBeneath(FS_READ_FILE | (FS_READ_DIR if is_dir else 0), fd)
        if LIBC.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                         ctypes.byref(rule), 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def _landlock() -> None:
    abi = landlock_abi()
    if abi == 0:
        return
    changes = sum(bits for version, bits in FS_CHANGES.items() if version <= abi)
    attr = _RulesetAttr(handled_access_fs=changes | FS_READ_FILE | FS_READ_DIR)
    size = ctypes.sizeof(ctypes.c_uint64)
    if abi >= 6:
        attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL
        size *= 3
    ruleset = LIBC.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for path in _readable_roots():
            _allow_reading(ruleset, path)
        if LIBC.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


@functools.cache
def seccomp_filter() -> Any:  # a pyseccomp.SyscallFilter: pyseccomp has no type hints
    """The ranks' seccomp filter, built once per process (the zygote builds it before forking
    any rank; each rank only loads it); None without libseccomp."""
    seccomp = _SECCOMP
    if seccomp is None:
        return None
    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.CTL_TSYNC, 1)  # gloo's threads too
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(denied, name)
        except OSError:  # a call this libseccomp does not know (fchmodat2 before 2.5.5)
            continue
    for command in DENIED_FCNTLS:
        rules.add_rule(denied, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    shared = seccomp.Arg(3, seccomp.MASKED_EQ, mmap.MAP_SHARED, mmap.MAP_SHARED)
    rules.add_rule(denied, "mmap", shared)
    return rules


def _seccomp() -> None:
    rules = seccomp_filter()
    if rules is not None:
        rules.load()


def confine_rank() -> None:
    """Confine this process for good, with what the kernel offers: the seccomp filter binds
    every thread, the Landlock domain this thread and every thread or process it starts."""
    forbid_new_privileges()
    _landlock()
    _seccomp()
