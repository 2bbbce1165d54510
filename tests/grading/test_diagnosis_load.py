"""A diagnosis's words do not depend on the machine's load: the reference's run has the
exercise's own time limit, so a machine on which the reference takes seconds instead of
milliseconds still gives it the time the learner's run had, and the same message."""

from __future__ import annotations

from cjudge.contract.protocol import CaseSpec, JobSpec, RawCase
from cjudge.grading.diagnosis.case import RunCase
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case
from tests.grading.helpers import exercise


def loaded(need_s: float) -> RunCase:
    """The simulated runtime on a machine so loaded that a run takes ``need_s`` seconds: a run
    whose time limit is shorter stops on it, as it would there."""
    def run(job: JobSpec, spec: CaseSpec) -> RawCase:
        raw = run_case(job, spec)
        return raw if job["time_limit_s"] >= need_s else RawCase(**{**raw, "stop": "time_limit"})
    return run


def first_failing(exercise_id: str, wrong: str, reference: RunCase) -> dict:
    """The first failing case of the exercise's known-wrong file ``wrong``, the reference run
    by ``reference``."""
    ex = exercise(exercise_id)
    path = ex.path / "wrong" / wrong
    result = judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case, "sim",
                        reference=reference)
    return next(c for c in result["cases"] if c["verdict"] != "accepted")


def test_a_slow_reference_run_leaves_the_message_unchanged() -> None:
    """moe-dispatch-combine's fixed capacity is over_budget; its message compares the bytes
    with the reference's, on a quiet machine and on one where the reference takes 3 s (under
    the exercise's 5 s, over any shorter limit of the diagnosis's own)."""
    quiet = first_failing("moe-dispatch-combine", "fixed_capacity.py", run_case)
    busy = first_failing("moe-dispatch-combine", "fixed_capacity.py", loaded(3.0))
    assert quiet["verdict"] == busy["verdict"] == "over_budget"
    assert "the reference's rank 2 sends 144 bytes" in quiet["message"]
    assert (busy["message"], busy["message_zh"]) == (quiet["message"], quiet["message_zh"])
