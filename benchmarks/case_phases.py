"""Benchmark: where one real case's time goes, phase by phase, for each ring-allreduce case.

    .venv/bin/python benchmarks/case_phases.py [--repeat 3]

The reference runs on real ranks; the judge's own calls are timed from the case's start: the
zygote has forked every rank (``launched``), the first and last rank said hello on its channel
(connected, before any learner code), the first and last began the graded call (learner's
module imported, group made, rank confined), the last ended it, and the case is over
(``total``: ranks killed and reaped). Medians over ``--repeat`` runs, in ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.real.zygote import start_zygote  # noqa: E402

start_zygote()  # before any job is known, as the CLI and the runner do

from cjudge.exercise.exercises import load_exercise  # noqa: E402
from cjudge.grading.grade import plan_cases  # noqa: E402
from cjudge.real import runtime  # noqa: E402
from cjudge.switch import core, server  # noqa: E402

PHASES = ("launched", "hello", "begin", "end")


def instrument(log: list[tuple[str, float]]) -> None:
    """Note the moment of each phase in ``log`` (wrapping the judge's own methods)."""
    def noting(cls: type, name: str, phase: str) -> None:
        original = getattr(cls, name)

        def wrapped(*args: object, **kwargs: object) -> object:
            result = original(*args, **kwargs)
            log.append((phase, time.perf_counter()))
            return result

        setattr(cls, name, wrapped)

    noting(runtime.ZygoteLauncher, "__init__", "launched")
    noting(server.SwitchServer, "_hello", "hello")
    noting(core.Switch, "begin", "begin")
    noting(core.Switch, "end", "end")


def main() -> int:
    """Run the reference's cases ``--repeat`` times; print each phase's median per case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ex = load_exercise(ROOT / "exercises" / "ring-allreduce")
    job = ex.job_spec((ex.path / "solution.py").read_text(), "solution.py")
    log: list[tuple[str, float]] = []
    instrument(log)
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for _ in range(args.repeat):
        for spec in plan_cases(ex):
            log.clear()
            start = time.perf_counter()
            runtime.run_case(job, spec)
            row = rows[f"{spec['name']} (n={spec['world_size']})"]
            row["total"].append(1000 * (time.perf_counter() - start))
            for phase in PHASES:
                times = [1000 * (t - start) for p, t in log if p == phase]
                if phase in ("hello", "begin"):
                    row[f"first {phase}"].append(min(times))
                row[f"last {phase}" if phase != "launched" else phase].append(max(times))
    columns = ["launched", "first hello", "last hello", "first begin", "last begin", "last end",
               "total"]
    print(f"{'case':32}" + "".join(f"{c:>13}" for c in columns))
    for name, row in rows.items():
        print(f"{name:32}" + "".join(f"{statistics.median(row[c]):13.0f}" for c in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
