"""Benchmark: the ring all-reduce's reference judged at real sizes, on real ranks (and the sim).

    .venv/bin/python benchmarks/big_cases.py [--sizes 8x4 8x16 4x64] [--sim 8x4]

A scratch copy of the exercise (``tests/real/scratch.py``) with one case per size, ``NxM``: N
ranks of M MiB of float32 each. Each size is judged in a process of its own (so that its peak
memory is its own, not the largest so far); printed: its verdict, the judge's wall time for the
case (planning, running, grading), the ranks' wall time, and the judge's peak resident memory.
"""

from __future__ import annotations

import argparse
import subprocess
import sys


def judge_size(size: str, runtime: str) -> str:
    """One line: the reference judged at ``size`` ("8x16": 8 ranks of 16 MiB) on ``runtime``,
    in this process (which it fills with the case's values: call it in a process of its own)."""
    import resource
    import tempfile
    import time
    from pathlib import Path

    from _side_by_side import ROOT  # starts the zygote first, as the CLI does

    sys.path.insert(0, str(ROOT))
    from cjudge.grading.submission import judge_code
    from cjudge.real.runtime import run_case
    from cjudge.sim.runtime import run_case as run_sim_case
    from tests.real.scratch import ring_with_cases

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
    """Judge the reference at every size asked for, one line each, each in a fresh process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", default=["8x4", "8x16", "4x64"])
    parser.add_argument("--sim", nargs="*", default=["8x4"])
    parser.add_argument("--one", nargs=2, metavar=("SIZE", "RUNTIME"),
                        help="judge one size on one runtime here (what each fresh process does)")
    args = parser.parse_args()
    if args.one:
        print(judge_size(*args.one), flush=True)
        return 0
    rows = [(size, "torch") for size in args.sizes] + [(size, "sim") for size in args.sim]
    for size, runtime in rows:
        subprocess.run([sys.executable, __file__, "--one", size, runtime], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
