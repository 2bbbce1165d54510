"""Shared helpers for the trace view's tests: a file graded on the simulated runtime."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from cjudge.contract.verdict_json import CaseResult
from cjudge.exercise.exercises import Exercise, default_root, load_exercise
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.sim.runtime import run_case
from cjudge.view.present import present_case


@cache
def exercise(exercise_id: str) -> Exercise:
    """One exercise of the repo (loaded alone: a draft beside it does not matter)."""
    return load_exercise(default_root() / exercise_id)


def graded(exercise_id: str, file: str, world_size: int | None = None) -> CaseResult:
    """The graded case (verdict JSON, with its timeline) of an exercise's ``file`` (e.g.
    "solution.py", "wrong/recv_before_send.py") on its case with ``world_size`` ranks (else the
    first case)."""
    ex = exercise(exercise_id)
    specs = plan_cases(ex)
    spec = next(s for s in specs if world_size is None or s["world_size"] == world_size)
    path = Path(ex.path) / file
    raw = run_case(ex.job_spec(path.read_text(encoding="utf-8"), path.name), spec)
    facts = CaseFacts.of(ex, spec, raw)
    case = grade_case(facts)
    present_case(facts, case)
    return case
