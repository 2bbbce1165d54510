"""Benchmark: the reference ring all-reduce's wall time between its graded call's start and end,
on the judge's switch and on gloo, at 8 ranks (goal: the switch within 2x of gloo).

    .venv/bin/python benchmarks/ring_wall.py [--world 8] [--repeat 5]

Each rank waits at a barrier, then times the exercise's reference ``ring_all_reduce`` on 64 Ki
and 1 Mi float32 elements; rank 0's median over ``--repeat`` calls is printed for each runtime,
with the ratio switch / gloo.
"""

from __future__ import annotations

import argparse
import sys

from _side_by_side import ROOT, on_gloo, on_switch

TIMED = """

import time


def timed(t):
    times = []
    for _ in range(REPEAT):
        dist.barrier()
        start = time.perf_counter()
        ring_all_reduce(t)
        times.append(time.perf_counter() - start)
    return torch.tensor([sorted(times)[len(times) // 2]])
"""


def main() -> int:
    """Print the ring's median wall time per size on both runtimes and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    solution = (ROOT / "exercises" / "ring-allreduce" / "solution.py").read_text()
    code = solution + TIMED.replace("REPEAT", str(args.repeat))
    for numel in (64 << 10, 1 << 20):
        switch = on_switch(code, "timed", args.world, numel)[0]
        gloo = on_gloo(code, "timed", args.world, numel)[0]
        print(f"n={args.world} {numel:>8} float32  switch {switch * 1e3:8.2f} ms  "
              f"gloo {gloo * 1e3:8.2f} ms  switch/gloo {switch / gloo:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
