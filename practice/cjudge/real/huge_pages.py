"""Cheaper forks of a process that has imported torch: its anonymous memory in huge pages.

``import torch`` leaves about 150 MB of anonymous memory. Forking copies a page-table entry for
every 4 KiB page of it and each child's exit frees them again: a bare fork and exit took 10 ms
here, 4 ms with the memory in huge pages (``benchmarks/rank_cost.py``). The zygote asks the
kernel to back that memory with 2 MiB pages (``MADV_HUGEPAGE``) and to do it now
(``MADV_COLLAPSE``, Linux 6.1+), so a fork copies one entry per 2 MiB instead. A child writing
into such a page gets its own copy of the 4 KiB it wrote, as before. Where the kernel refuses,
nothing changes but the cost.
"""

from __future__ import annotations

import ctypes

MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
HUGE = 1 << 21

_libc = ctypes.CDLL(None, use_errno=True)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _anonymous_ranges() -> list[tuple[int, int]]:
    """This process's writable anonymous mappings (and its heap), cut to whole huge pages."""
    ranges = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            name = fields[5] if len(fields) > 5 else ""
            if "w" not in fields[1] or name not in ("", "[heap]"):
                continue
            low, high = (int(x, 16) for x in fields[0].split("-"))
            start, end = -(-low // HUGE) * HUGE, high // HUGE * HUGE
            if end > start:
                ranges.append((start, end))
    return ranges


def collapse_anonymous_memory() -> int:
    """Back this process's anonymous memory with huge pages where the kernel agrees; the bytes
    it collapsed."""
    collapsed = 0
    for start, end in _anonymous_ranges():
        if _libc.madvise(start, end - start, MADV_HUGEPAGE) != 0:
            continue  # THP off, or an old kernel: forks just cost more
        if _libc.madvise(start, end - start, MADV_COLLAPSE) == 0:
            collapsed += end - start
    return collapsed
