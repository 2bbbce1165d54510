"""What grading does with the model's and the switch's measures: an incomplete replay is the
judge's defect, message bounds and floors (reference runs on simulated ranks)."""

from __future__ import annotations

import copy

from cjudge.grading import grade_case, plan_cases
from cjudge.sim.runtime import run_case

from .helpers import exercise


def _reference_run(exercise_id: str, case: int = 0) -> tuple[dict, dict]:
    """(case spec, raw report) of the exercise's reference on one case."""
    ex = exercise(exercise_id)
    spec = plan_cases(ex)[case]
    return spec, run_case(ex.job_spec(ex.solution, "solution.py"), spec)


def test_an_incomplete_replay_of_a_correct_case_is_a_judge_error():
    """The reference's receives marked ungraded (as if posted before the graded call): the
    answer is right, but the model cannot place the messages, so the case is the judge's
    defect, never accepted with its time bound skipped."""
    ex = exercise("ring-allreduce")
    spec, raw = _reference_run("ring-allreduce")
    assert grade_case(ex, spec, raw)["verdict"] == "accepted"
    lost = copy.deepcopy(raw)
    for req in lost["trace"]["requests"]:
        if req["kind"] == "recv":
            req["graded"] = False
    case = grade_case(ex, spec, lost)
    assert case["verdict"] == "judge_error"
    assert "defect of the judge" in case["message"] and "评测机的缺陷" in case["message_zh"]
    assert not all(row["complete"] for row in case["model"]["sizes"])
