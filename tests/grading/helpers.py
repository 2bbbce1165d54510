"""Shared helpers for the kernel tests: judging a snippet on real ranks, a known-wrong file on
the simulated runtime."""

from __future__ import annotations

import textwrap

from cjudge.exercise.exercises import Exercise, default_root, load_exercises
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.real.runtime import run_case
from cjudge.sim.runtime import run_case as run_sim_case

EXERCISES = load_exercises(default_root())


def exercise(exercise_id: str) -> Exercise:
    """An exercise of the repo by id."""
    return EXERCISES[exercise_id]


def judge(exercise_id: str, code: str, **kwargs) -> dict:
    """The verdict JSON of ``code`` (dedented) on real gloo ranks."""
    return judge_code(exercise(exercise_id), textwrap.dedent(code), "learner.py", run_case,
                      "torch", **kwargs)


def judge_first_case(exercise_id: str, code: str, time_limit_s: float | None = None,
                     launcher: str = "fork") -> tuple[dict, dict]:
    """(raw report, graded case) of the first case only, optionally with a shorter time limit."""
    ex = exercise(exercise_id)
    job = ex.job_spec(textwrap.dedent(code), "learner.py")
    if time_limit_s is not None:
        job["time_limit_s"] = time_limit_s
    spec = plan_cases(ex)[0]
    raw = run_case(job, spec, launcher=launcher)
    return raw, grade_case(CaseFacts.of(ex, spec, raw))


def first_failing(exercise_id: str, wrong: str) -> dict:
    """The first failing case of a known-wrong file, judged on the simulated runtime."""
    path = exercise(exercise_id).path / "wrong" / wrong
    out = judge_code(exercise(exercise_id), path.read_text(encoding="utf-8"), path.name,
                     run_sim_case, "sim")
    return next(c for c in out["cases"] if c["verdict"] != "accepted")
