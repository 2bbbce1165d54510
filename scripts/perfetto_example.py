#!/usr/bin/env python3
"""Write docs/perfetto/ring-allreduce-8-ranks.json: the reference ring all-reduce's 8-rank case as
Chrome trace-event JSON (what ``judge.py test … --perfetto FILE`` writes), to open in
ui.perfetto.dev. Graded on the simulated runtime, whose trace is the real runtime's
(the conformance suite), so the file is the same on every machine.

    .venv/bin/python scripts/perfetto_example.py [OUT]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.exercise.exercises import default_root, load_exercise  # noqa: E402
from cjudge.grading.facts import CaseFacts  # noqa: E402
from cjudge.grading.grade import grade_case, plan_cases  # noqa: E402
from cjudge.sim.runtime import run_case  # noqa: E402
from cjudge.view.perfetto import chrome_trace  # noqa: E402
from cjudge.view.present import present_case  # noqa: E402

OUT = ROOT / "docs" / "perfetto" / "ring-allreduce-8-ranks.json"


def main(out: Path) -> None:
    """Grade the reference's 8-rank case and write its trace to ``out``, one event a line."""
    ex = load_exercise(default_root() / "ring-allreduce")
    spec = next(s for s in plan_cases(ex) if s["world_size"] == 8)
    raw = run_case(ex.job_spec(ex.solution, "solution.py"), spec)
    facts = CaseFacts.of(ex, spec, raw)
    case = grade_case(facts)
    present_case(facts, case)
    trace = chrome_trace(case, f"ring-allreduce · {case['name']}: {case['verdict']}")
    events = ",\n".join(json.dumps(e, ensure_ascii=False) for e in trace.pop("traceEvents"))
    head = json.dumps(trace, ensure_ascii=False)[1:-1]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f'{{{head},\n"traceEvents": [\n{events}\n]}}\n', encoding="utf-8")
    print(f"wrote {out} ({case['name']}: {case['verdict']})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
