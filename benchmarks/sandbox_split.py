"""Benchmark: what the server's sandbox adds to running a suite's cases, layer by layer.

    .venv/bin/python benchmarks/sandbox_split.py [--exercise ring-allreduce] [--rounds 7]

The reference's cases (the CLI's plan, as a submission's are: samples and hidden), run six ways:

* ``in process``: the kernel's real runtime here (``cjudge.real.runtime.run_case``), as
  ``judge.py test`` runs them;
* ``runner``: a warm runner (``cjudge.rank.runner``) as a plain process, no cgroups: the result
  channel, the runner's zygote and the frame it is sent;
* ``runner + cgroups``: the same in cgroups of its own (this host's memory, pids, cpu);
* ``bwrap``: the runner in bubblewrap, no cgroups;
* ``bwrap + cgroups``: the runner in bubblewrap and its cgroups;
* ``forked``: the server's default (``CJUDGE_SANDBOX_FORK``): forked by a fork server that
  imported torch once, in bubblewrap and its cgroups.

Each sandbox is started and ready before its clock starts (the worker takes a warm one); the
clock runs from handing it the job to the last case's report, as the worker's ``grading``
includes. The ways take turns within each round (a loaded moment hits all of them); medians
over ``--rounds``, in ms, and each way's excess over ``in process``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "practice"), str(ROOT)]

from cjudge.real.zygote import start_zygote  # noqa: E402

start_zygote()  # before any job is known, as the CLI and the runner do

from cjudge.contract.protocol import CaseSpec, JobSpec  # noqa: E402
from cjudge.exercise.exercises import load_exercise  # noqa: E402
from cjudge.grading.grade import plan_cases  # noqa: E402
from cjudge.real import runtime  # noqa: E402
from server.sandbox import ForkedSandbox, Sandbox, SandboxProcess, spec_from  # noqa: E402
from server.sandbox.cgroups import Hierarchies, discover  # noqa: E402
from server.sandbox.forked import ForkServer  # noqa: E402
from server.settings import Settings  # noqa: E402

#: how long a case's report may take in the benchmark (the reference ends in well under this)
DUE_S = 60.0


def in_process(job: JobSpec, cases: list[CaseSpec]) -> float:
    """Seconds the kernel's real runtime takes for ``cases`` here."""
    start = time.perf_counter()
    for case in cases:
        runtime.run_case(job, case)
    return time.perf_counter() - start


def in_sandbox(sandbox: Sandbox, job: JobSpec, cases: list[CaseSpec]) -> float:
    """Seconds from handing the ready ``sandbox`` the job to its last case's report."""
    try:
        sandbox.wait_ready()
        start = time.perf_counter()
        sandbox.send(job, cases)
        for case in cases:
            raw = sandbox.next_raw(time.monotonic() + DUE_S)
            if raw is None or raw.get("name") != case["name"]:
                raise SystemExit(f"the sandbox stopped ({sandbox.stop}): {sandbox.log()}")
        return time.perf_counter() - start
    finally:
        sandbox.close()


def ways(settings: Settings) -> tuple[dict[str, Callable[[JobSpec, list[CaseSpec]], float]],
                                      ForkServer]:
    """Each way of running the cases, by name, and the fork server to close at the end."""
    hier, bare = discover(), Hierarchies()
    sandboxed = spec_from(settings, hier)
    plain = replace(sandboxed, sandboxed=False)
    server = ForkServer(sandboxed)

    def on(make: Callable[[], Sandbox]) -> Callable[[JobSpec, list[CaseSpec]], float]:
        return lambda job, cases: in_sandbox(make(), job, cases)

    return {
        "in process": in_process,
        "runner": on(lambda: SandboxProcess(plain, bare)),
        "runner + cgroups": on(lambda: SandboxProcess(plain, hier)),
        "bwrap": on(lambda: SandboxProcess(sandboxed, bare)),
        "bwrap + cgroups": on(lambda: SandboxProcess(sandboxed, hier)),
        "forked": on(lambda: ForkedSandbox(server, sandboxed, hier)),
    }, server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", default="ring-allreduce")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    ex = load_exercise(ROOT / "exercises" / args.exercise)
    job = ex.job_spec(ex.solution, "solution.py")
    cases = plan_cases(ex)
    settings = Settings(sandbox="bwrap")
    run, server = ways(settings)
    print(f"{ex.id}: {len(cases)} cases, the reference; {discover().describe()}")
    times: dict[str, list[float]] = {name: [] for name in run}
    try:
        for way in run.values():  # a first, untimed round: caches, the fork server
            way(job, cases)
        for done in range(args.rounds):
            for name, way in run.items():
                times[name].append(way(job, cases))
            print(f"round {done + 1}/{args.rounds}", file=sys.stderr)
    finally:
        server.close()
    base = statistics.median(times["in process"])
    print(f"\n{'way':<18} {'median ms':>10} {'min ms':>8} {'over in process':>16}")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:<18} {1000 * median:10.1f} {1000 * min(seconds):8.1f} "
              f"{1000 * (median - base):+15.1f}")


if __name__ == "__main__":
    main()
