"""Benchmark: the judge's own memory and wall time under hostile submissions (issue 22).

    .venv/bin/python benchmarks/judge_floods.py [--exercise ring-allreduce]

Each flood of the attack corpus (tests/server/sandbox/attacks) runs as one case (the exercise's first)
on real ranks, the judge's side in a fresh process of its own: ``peak`` is that process's
high-water mark of resident memory (VmHWM), ``growth`` how far it rose above what it held before
the case, and ``wall/limit`` the case's wall time against the exercise's time limit. The
reduction flood runs twice: with numpy on the judge's side, and in pure Python (sliced, as on a
runner without numpy).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "server" / "sandbox" / "attacks"
#: scenario -> (attack file, reductions in pure Python)
SCENARIOS = {
    "reply_flood": ("reply_flood.py", False),
    "refusal_flood": ("refusal_flood.py", False),
    "new_group_flood": ("new_group_flood.py", False),
    "slow_reduction": ("slow_reduction.py", False),
    "slow_reduction (pure Python)": ("slow_reduction.py", True),
}


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def one(exercise: str, attack: str, pure: bool) -> dict[str, object]:
    """Run ``attack`` as the exercise's first case, the judge here; what it cost the judge."""
    sys.path.insert(0, str(ROOT / "practice"))
    from cjudge.real.zygote import start_zygote

    start_zygote()  # before any job is known, as the CLI and the runner do
    from cjudge.exercise.exercises import load_exercise
    from cjudge.grading.grade import plan_cases
    from cjudge.real import runtime
    from cjudge.switch import reduce

    if pure:
        reduce.np = None
    ex = load_exercise(ROOT / "exercises" / exercise)
    job = ex.job_spec((ATTACKS / attack).read_text(), attack)
    case = plan_cases(ex)[0]
    before = _status_kib("VmRSS")
    raw = runtime.run_case(job, case)
    peak = _status_kib("VmHWM")
    return {"stop": raw["stop"], "wall_s": raw["wall_ms"] / 1000, "limit_s": ex.time_limit_s,
            "peak_mib": peak / 1024, "growth_mib": max(peak - before, 0) / 1024}


def main() -> None:
    """Every scenario in a process of its own; a table, and the worst cases."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--exercise", default="ring-allreduce")
    p.add_argument("--one", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        attack, pure = SCENARIOS[args.one]
        print(json.dumps(one(args.exercise, attack, pure)))
        return
    rows = {}
    for name in SCENARIOS:
        out = subprocess.run([sys.executable, __file__, "--exercise", args.exercise, "--one", name],
                             capture_output=True, text=True, check=True).stdout
        rows[name] = json.loads(out.splitlines()[-1])
    print(f"{'scenario':30} {'stop':>12} {'wall s':>7} {'wall/limit':>10} {'peak MiB':>9} "
          f"{'growth MiB':>10}")
    for name, r in rows.items():
        print(f"{name:30} {r['stop'] or '-':>12} {r['wall_s']:7.2f} "
              f"{r['wall_s'] / r['limit_s']:10.2f} {r['peak_mib']:9.0f} {r['growth_mib']:10.0f}")
    worst = max(rows.values(), key=lambda r: r["wall_s"] / r["limit_s"])
    print(f"worst wall time: {worst['wall_s']:.2f} s against a {worst['limit_s']:g} s limit; "
          f"largest judge growth: {max(r['growth_mib'] for r in rows.values()):.0f} MiB")


if __name__ == "__main__":
    main()
