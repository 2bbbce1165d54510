"""Benchmark: the ring all-reduce's reference judged at real sizes, on real ranks (and the sim).

    .venv/bin/python benchmarks/big_cases.py [--sizes 8x4 8x16 4x64] [--sim 8x4]

A scratch copy of the exercise (``tests/real/scratch.py``) with one case per size, ``NxM``: N
ranks of M MiB of float32 each. Each case is judged on its own; printed: its verdict, the
judge's wall time for the case (planning, running, grading), the ranks' wall time, and the
judge's peak resident memory so far.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

from _side_by_side import ROOT  # starts the zygote first, as the CLI does

sys.path.insert(0, str(ROOT))

from cjudge.grading.submission import judge_code  # noqa: E402
from cjudge.real.runtime import run_case  # noqa: E402
from cjudge.sim.runtime import run_case as run_sim_case  # noqa: E402
from tests.real.scratch import ring_with_cases  # noqa: E402


def judge_size(size: str, runtime: str) -> str:
    """One line: the reference judged at ``size`` ("8x16": 8 ranks of 16 MiB) on ``runtime``."""
    world, mib = (int(x) for x in size.split("x"))
    with tempfile.TemporaryDirectory() as folder:
        ex = ring_with_cases(Path(folder), [(world, mib << 18)], time_limit_s=600.0)
        start = time.perf_counter()
        result = judge_code(ex, ex.solution, "solution.py",
                            run_case if runtime == "torch" else run_sim_case, runtime,
                            all_cases=True)
        wall = time.perf_counter() - start
    case = result["cases"][-1]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (f"{runtime:5} {world:>2} ranks x {mib:>3} MiB  {case['verdict']:13} judge {wall:6.1f} s"
            f"  ranks {case['wall_ms'] / 1e3:6.2f} s  judge peak RSS {peak:6.0f} MiB")


def main() -> int:
    """Judge the reference at every size asked for, one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", default=["8x4", "8x16", "4x64"])
    parser.add_argument("--sim", nargs="*", default=["8x4"])
    args = parser.parse_args()
    for size in args.sizes:
        print(judge_size(size, "torch"), flush=True)
    for size in args.sim:
        print(judge_size(size, "sim"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
