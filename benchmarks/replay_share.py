"""Benchmark: the α-β replay's share of a sim run, per exercise, as grading models (issue 37).

    .venv/bin/python benchmarks/replay_share.py [--repeat 3]

For every exercise, every case of its reference runs once on the simulated runtime; then each
case's trace is modelled with the exercise's own ``[model]`` (``model_case``: its topology, its
sizes, its listed cases only), ``--repeat`` times. Prints per exercise the sim's run time, the
model's (median), its share (goal ≤ 5 %) and the trace walks per modelled case (one: sizes
whose transfer order differs go on apart from where they part, within that walk). Then the
64-rank ring's reference trace on 8 × 8 H100: every size in one walk against one replay per
size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "practice"))

from cjudge.contract.values import input_bytes  # noqa: E402
from cjudge.exercise.exercises import default_root, load_exercises  # noqa: E402
from cjudge.grading.grade import plan_cases  # noqa: E402
from cjudge.model import reference as ref  # noqa: E402
from cjudge.model import replay as replay_module  # noqa: E402
from cjudge.model.case import model_case  # noqa: E402
from cjudge.model.topology import get_topology  # noqa: E402
from cjudge.sim.runtime import run_case  # noqa: E402


def median_seconds(repeat: int, work) -> float:  # type: ignore[no-untyped-def]
    """The median wall time of ``repeat`` calls of ``work()``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="times the model is timed (3)")
    args = parser.parse_args()
    print(f"{'exercise':<22} {'cases':>5} {'sim run ms':>10} {'model ms':>9} {'model/run':>9} "
          f"{'walks/case':>10}")
    worst = 0.0
    for ex in load_exercises(default_root()).values():
        job = ex.job_spec(ex.solution, "solution.py")
        run_s, cases = 0.0, []
        for case in plan_cases(ex):
            start = time.perf_counter()
            raw = run_case(job, case)
            run_s += time.perf_counter() - start
            if input_bytes(case) and ex.model.models(case["name"]):
                cases.append((raw["trace"], input_bytes(case), case))
        if not cases:
            continue

        def model_all(cases: list = cases, ex=ex) -> None:  # type: ignore[no-untyped-def]
            for trace, size, case in cases:
                model_case(trace, size, ex.model, case["name"], params=case["params"])

        walks = replay_module.WALKS[0]
        model_all()
        walks = (replay_module.WALKS[0] - walks) / len(cases)
        model_s = median_seconds(args.repeat, model_all)
        worst = max(worst, model_s / run_s)
        print(f"{ex.id:<22} {len(cases):>5} {run_s * 1e3:>10.1f} {model_s * 1e3:>9.2f} "
              f"{100 * model_s / run_s:>8.2f}% {walks:>10.2f}")
    print(f"largest share: {100 * worst:.2f}%")
    trace, topo = ref.ring_all_reduce(64, 64 * 66 * 4), get_topology("h100x8x8")
    scales = [s / (64 * 66 * 4) for s in (4096, 10**6, 10**9)]
    together = median_seconds(args.repeat, lambda: replay_module.replay_sizes(trace, topo, scales))
    apart = median_seconds(args.repeat, lambda: [replay_module.replay(trace, topo, s)
                                                 for s in scales])
    print(f"ring, 64 ranks, {len(trace['messages'])} messages, 3 sizes: one walk "
          f"{together * 1e3:.0f} ms, one replay per size {apart * 1e3:.0f} ms "
          f"(ratio {together / apart:.2f})")


if __name__ == "__main__":
    main()
