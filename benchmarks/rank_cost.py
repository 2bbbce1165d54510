"""Benchmark: what one real rank costs in CPU, with and without the zygote's preparation.

    .venv/bin/python benchmarks/rank_cost.py [--repeat 3]

Two measures, each taken with the zygote's ``ready_to_fork`` (judge backend registered,
``torch.ops.c10d`` routed, seccomp filter built, objects frozen out of the garbage collector,
memory in huge pages) and with it skipped, in fresh processes, interleaved:

* ``suite``: the ring-allreduce reference's cases on real ranks; the CPU of the zygote and every
  rank it forked (``RUSAGE_CHILDREN`` once the zygote is reaped), less what the zygote did
  once, its torch import and its preparation (timed again in this process), per rank;
* ``fork``: a bare fork of the prepared (or not) process that exits at once, and one that runs
  a full garbage collection first, as a learner's allocating code may: wall ms per child.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))


def _fork_ms(child: object, n: int = 20) -> float:
    """Wall ms per fork of this process whose child calls ``child`` and exits."""
    start = time.perf_counter()
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            child()  # type: ignore[operator]
            os._exit(0)
        os.waitpid(pid, 0)
    return (time.perf_counter() - start) / n * 1000


def measure(prepared: bool) -> dict[str, float]:
    """One fresh process's numbers (run as ``--measure``)."""
    from cjudge.real import zygote

    if not prepared:
        zygote.ready_to_fork = lambda: None  # what the zygote did before
    zygote.start_zygote()
    from cjudge.exercise.exercises import load_exercise
    from cjudge.grading.grade import plan_cases
    from cjudge.real.runtime import run_case

    ex = load_exercise(ROOT / "exercises" / "ring-allreduce")
    job = ex.job_spec((ex.path / "solution.py").read_text(), "solution.py")
    specs = plan_cases(ex)
    for spec in specs:
        run_case(job, spec)
    forked = zygote._zygote
    os.close(forked._requests)  # the zygote ends at EOF; reaping it adds its children's CPU
    os.waitpid(forked.pid, 0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    ranks = sum(spec["world_size"] for spec in specs)
    before = time.process_time()
    import cjudge.real.rank  # noqa: F401 - torch, which the zygote imported once too
    imported = time.process_time()
    zygote.ready_to_fork()  # what the zygote did once (a no-op unprepared); then bare forks
    prep_s = time.process_time() - imported
    zygote_s = time.process_time() - before
    return {"prep_ms": prep_s * 1000,
            "rank_ms": (usage.ru_utime + usage.ru_stime - zygote_s) / ranks * 1000,
            "sys_ms": usage.ru_stime / ranks * 1000,
            "fork_ms": _fork_ms(lambda: None), "fork_gc_ms": _fork_ms(gc.collect)}


def main() -> int:
    """Measure both ways ``--repeat`` times, interleaved; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--measure", choices=("prepared", "unprepared"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure == "prepared")))
        return 0
    runs: dict[str, list[dict[str, float]]] = {"prepared": [], "unprepared": []}
    for _ in range(args.repeat):
        for way in runs:
            out = subprocess.run([sys.executable, __file__, "--measure", way], check=True,
                                 capture_output=True, text=True, cwd=ROOT).stdout
            runs[way].append(json.loads(out.splitlines()[-1]))
    print(f"medians of {args.repeat} fresh processes each")
    for way, rows in runs.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"  {way:10}  per rank {med['rank_ms']:5.1f} ms CPU (sys {med['sys_ms']:4.1f}), "
              f"plus {med['prep_ms']:5.1f} ms once;  bare fork {med['fork_ms']:5.1f} ms, "
              f"fork + gc.collect {med['fork_gc_ms']:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
