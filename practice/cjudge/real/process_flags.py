"""Per-process flags the judge sets through Linux's prctl(2), and glibc's malloc's."""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: buffers this large or larger get memory of their own from the system, returned when freed
LARGE_BUFFER = 4 << 20
LIBC = ctypes.CDLL(None, use_errno=True)  # also for the syscalls glibc has no wrapper for


def _prctl(option: int, value: int) -> None:
    if LIBC.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value})")


def give_back_large_buffers() -> None:
    """Have glibc map every buffer of :data:`LARGE_BUFFER` or more on its own, so that freeing
    it returns it to the system (its default threshold grows up to 32 MiB with use: payloads
    freed in the heap stay resident). The heap's free top is returned past that size too:
    fixing one threshold stops glibc from moving the other, whose default, 128 KiB, gave a
    megabyte's payload fresh pages, faulted in, on every message. For the judge, after its
    zygote is forked."""
    LIBC.mallopt(M_MMAP_THRESHOLD, LARGE_BUFFER)
    LIBC.mallopt(M_TRIM_THRESHOLD, LARGE_BUFFER)


def set_dumpable(dumpable: bool) -> None:
    """Whether processes of the same uid may ptrace this one or open its /proc/<pid> files."""
    _prctl(PR_SET_DUMPABLE, int(dumpable))


def forbid_new_privileges() -> None:
    """For good: no exec may grant privileges (what seccomp and Landlock require first)."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


def die_with(parent: int) -> None:
    """Be killed when ``parent`` (this forked child's parent, by pid) ends; exit at once if it
    has ended already."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(70)
