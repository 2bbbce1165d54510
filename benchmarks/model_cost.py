"""Benchmark: what the α-β replay costs for a whole suite's traces (issue 11: ≤ 5 % of a test).

    .venv/bin/python benchmarks/model_cost.py [--repeat 5] [--sizes 4KiB,1MB,1GB]

For every exercise, every case of its reference is run once on the simulated runtime (the
switch records the trace); then ``cjudge.model.case.model_case`` models each case's trace at the
given sizes, ``--repeat`` times. Prints, per exercise, the suite's run time (the sim's
``run_case``, fork included) and the model's time for the whole suite (median of the repeats),
and the model's share. The real runtime's cases take longer than the sim's (tens of ms each),
so the share against ``judge.py test`` on real ranks is smaller still.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.contract.primitives import CANONICAL  # noqa: E402
from cjudge.contract.values import input_bytes  # noqa: E402
from cjudge.exercise.exercises import default_root, load_exercises  # noqa: E402
from cjudge.grading.grade import plan_cases  # noqa: E402
from cjudge.model.case import ModelSpec, model_case  # noqa: E402
from cjudge.sim.runtime import run_case  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="times the model is timed (5)")
    parser.add_argument("--sizes", default="4KiB,1MB,1GB", help="modelled sizes (4KiB,1MB,1GB)")
    args = parser.parse_args()
    print(f"{'exercise':<20} {'cases':>5} {'requests':>8} {'sim run ms':>10} {'model ms':>9} "
          f"{'model/run':>9}")
    for ex in load_exercises(default_root()).values():
        spec = ModelSpec.from_table({"sizes": args.sizes.split(",")}, CANONICAL.get(ex.builtin))
        job = ex.job_spec(ex.solution, "solution.py")
        runs, cases = [], []
        for case in plan_cases(ex):
            start = time.perf_counter()
            raw = run_case(job, case)
            runs.append(time.perf_counter() - start)
            if input_bytes(case):  # as grading does: a case without input bytes is not modelled
                cases.append((raw["trace"], input_bytes(case)))
        timings = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for trace, run_size in cases:
                model_case(trace, run_size, spec)
            timings.append(time.perf_counter() - start)
        if not cases:
            continue
        run_s, model_s = sum(runs), statistics.median(timings)
        requests = sum(len(t["requests"]) for t, _ in cases)
        print(f"{ex.id:<20} {len(cases):>5} {requests:>8} {run_s * 1e3:>10.1f} "
              f"{model_s * 1e3:>9.2f} {100 * model_s / run_s:>8.2f}%")


if __name__ == "__main__":
    main()
