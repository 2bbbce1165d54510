"""Benchmark: what exploring a failure adds to a failing suite in the CLI.

    .venv/bin/python benchmarks/diagnosis_cost.py [--repeat 3] [FILE ...]

Each file of the mistake corpus (``tests/mistakes/<exercise>/*.py`` by default) is judged as
``cjudge test`` judges it, on real ranks, once without exploring (``explore=None``: only the
trace's own evidence) and once exploring on the simulated runtime (the reference's run on the
failing case, the smallest failing case). Medians over ``--repeat`` suites, in ms; the extra
time must stay under 2 s (issue 23).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.real.zygote import start_zygote  # noqa: E402

start_zygote()  # before any job is known, as the CLI does

from cjudge.exercise.exercises import default_root, load_exercises  # noqa: E402
from cjudge.grading.submission import judge_code  # noqa: E402
from cjudge.real.runtime import run_case  # noqa: E402
from cjudge.sim.runtime import run_case as simulated  # noqa: E402

LIMIT_MS = 2000.0


def suite_ms(exercise, code: str, name: str, explore) -> tuple[float, dict]:
    """One suite's wall time and its verdict JSON."""
    start = time.perf_counter()
    result = judge_code(exercise, code, name, run_case, "torch", explore=explore)
    return (time.perf_counter() - start) * 1000, result


def main() -> int:
    """Print one row per file: suite without and with exploring, the difference."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", type=Path)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    files = args.files or sorted((ROOT / "tests" / "mistakes").glob("*/*.py"))
    exercises = load_exercises(default_root())
    worst = 0.0
    print(f"{'file':<48} {'plain ms':>9} {'explore ms':>11} {'extra ms':>9}  smallest")
    for path in files:
        ex = exercises[path.parent.name.replace("_", "-")]
        code = path.read_text(encoding="utf-8")
        plain = statistics.median(suite_ms(ex, code, path.name, None)[0]
                                  for _ in range(args.repeat))
        runs = [suite_ms(ex, code, path.name, simulated) for _ in range(args.repeat)]
        explored = statistics.median(ms for ms, _ in runs)
        failing = next((c for c in runs[-1][1]["cases"] if c["verdict"] != "accepted"), {})
        small = failing.get("smallest", {}).get("name", "-")
        worst = max(worst, explored - plain)
        label = f"{path.parent.name}/{path.name}"
        print(f"{label:<48} {plain:>9.0f} {explored:>11.0f} {explored - plain:>9.0f}  {small}")
    print(f"largest extra: {worst:.0f} ms (limit {LIMIT_MS:.0f} ms)")
    return 0 if worst <= LIMIT_MS else 1


if __name__ == "__main__":
    sys.exit(main())
