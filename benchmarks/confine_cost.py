"""Benchmark: what confining one rank costs (``cjudge.real.confine.confine_rank`` in a forked child).

    .venv/bin/python benchmarks/confine_cost.py [--runs 20]

Each run forks a child that confines itself and reports how long that took; prints the median
and the maximum. Compare with a case's wall time (``benchmarks/kernel_suite.py``): tens of ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.real.confine import confine_rank, confinement_gaps  # noqa: E402


def one_run() -> float:
    """Seconds one forked child took to confine itself."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        start = time.perf_counter()
        confine_rank()
        os.write(write_fd, repr(time.perf_counter() - start).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        seconds = float(pipe.read())
    os.waitpid(pid, 0)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = [one_run() for _ in range(parser.parse_args().runs)]
    print(f"missing here: {confinement_gaps() or 'nothing'}")
    print(f"confine_rank: median {statistics.median(runs) * 1000:.2f} ms, "
          f"max {max(runs) * 1000:.2f} ms over {len(runs)} ranks")


if __name__ == "__main__":
    main()
