"""Benchmark: the judge's own work around one exercise's cases, phase by phase.

    .venv/bin/python benchmarks/judge_overhead.py [--exercise ring-allreduce] [--repeat 5]

The reference runs on real ranks. Per suite (every case of the exercise): ``plan`` (inputs made
from the seed), ``run`` (``run_case`` of every case, ranks and all), ``grade`` (``grade_case``
of every case), ``trace`` (``Switch.trace()`` at the end of each case), ``raw encode`` and
``raw decode`` (each RawCase through JSON, as the server's runner and worker do) and
``result json`` (the verdict JSON as ``judge.py test --json`` prints it). Medians over
``--repeat`` suites, in ms.
"""

from __future__ import annotations

import argparse
import json
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
from cjudge.grading.facts import CaseFacts  # noqa: E402
from cjudge.grading.grade import grade_case, plan_cases, summarize  # noqa: E402
from cjudge.real import runtime  # noqa: E402
from cjudge.switch.core import Switch  # noqa: E402


def timed_trace(times: list[float]) -> None:
    """Add the time of each ``Switch.trace()`` call to ``times`` (wrapping the switch's method)."""
    original = Switch.trace

    def wrapped(self: Switch) -> object:
        start = time.perf_counter()
        out = original(self)
        times.append(time.perf_counter() - start)
        return out

    Switch.trace = wrapped  # type: ignore[method-assign]


def suite(exercise_dir: Path, traces: list[float]) -> dict[str, float]:
    """One suite's phases, in ms."""
    ex = load_exercise(exercise_dir)
    job = ex.job_spec((ex.path / "solution.py").read_text(), "solution.py")
    ms: dict[str, float] = defaultdict(float)

    def clock(phase: str, start: float) -> float:
        now = time.perf_counter()
        ms[phase] += 1000 * (now - start)
        return now

    now = time.perf_counter()
    specs = plan_cases(ex)
    now = clock("plan", now)
    traces.clear()
    raws = []
    for spec in specs:
        raws.append(runtime.run_case(job, spec))
        now = clock("run", now)
    ms["trace"] = 1000 * sum(traces)
    now = time.perf_counter()
    lines = [json.dumps(raw) for raw in raws]
    now = clock("raw encode", now)
    raws = [json.loads(line) for line in lines]
    now = clock("raw decode", now)
    cases = [grade_case(CaseFacts.of(ex, spec, raw)) for spec, raw in zip(specs, raws, strict=True)]
    now = clock("grade", now)
    verdict = summarize(ex, cases, "real", ex.seed)
    now = time.perf_counter()
    json.dumps(verdict, indent=1, ensure_ascii=False)
    clock("result json", now)
    if verdict["verdict"] != "accepted":
        raise SystemExit(f"the reference was not accepted: {verdict['message']}")
    return ms


def main() -> int:
    """Run ``--repeat`` suites; print each phase's median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="ring-allreduce")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    traces: list[float] = []
    timed_trace(traces)
    rows: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.repeat):
        for phase, value in suite(ROOT / "exercises" / args.exercise, traces).items():
            rows[phase].append(value)
    print(f"{args.exercise}: medians of {args.repeat} suites, ms")
    for phase in ("plan", "run", "trace", "raw encode", "raw decode", "grade", "result json"):
        print(f"  {phase:12} {statistics.median(rows[phase]):9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
