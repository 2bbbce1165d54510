"""Benchmark: one payload copied between two ranks' segments by the judge, three ways.

    .venv/bin/python benchmarks/shm_copy.py [--repeat 500]

Two sealed segments as the switch makes them (``shm.create``); 1 MiB (and 4 KiB) copied from the
first's rank area into the second's judge area: by the kernel (``os.copy_file_range``, the judge's
way before it mapped its segments), by ``os.pread`` then ``os.pwrite`` (its way when a send came
before its receive), and through the judge's mappings (``Mapped.hand``, today's). Printed per size:
each way's median, and the kernel copy's ratio to the mapped one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.switch import shm  # noqa: E402

SIZES = (4096, 1 << 20)


def median_us(copy: Callable[[], None], repeat: int) -> float:
    """``copy``'s median time in microseconds over ``repeat`` calls (after five untimed)."""
    times = []
    for i in range(repeat + 5):
        start = time.perf_counter()
        copy()
        if i >= 5:
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> int:
    """Time each way of copying each size; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=500)
    args = parser.parse_args()
    source, target = shm.create(shm.MIN_AREA), shm.create(shm.MIN_AREA)
    if source is None or target is None:
        sys.exit("no memfd segments on this system")
    area = shm.MIN_AREA
    for size in SIZES:
        os.pwrite(source.fd, os.urandom(size), 0)

        def kernel(size: int = size) -> None:
            done = 0
            while done < size:
                done += os.copy_file_range(source.fd, target.fd, size - done, done, area + done)

        def read_write(size: int = size) -> None:
            os.pwrite(target.fd, os.pread(source.fd, size, 0), area)

        def mapped(size: int = size) -> None:
            source.hand((0, size), target, 0)

        k, rw, m = (median_us(way, args.repeat) for way in (kernel, read_write, mapped))
        print(f"{size:>8} B  copy_file_range {k:7.1f} us  pread+pwrite {rw:7.1f} us  "
              f"mapped {m:7.1f} us  copy_file_range/mapped {k / m:5.1f}x")
    source.close()
    target.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
