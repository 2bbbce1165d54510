"""A case's verdict is decided without words (``grading.decide``) and its message written once
from that decision (``grading.words``) and the run's evidence (``grading.diagnosis``)."""

from __future__ import annotations

import pytest

from cjudge.grading import grade as grade_module
from cjudge.grading.decide import Decision, Reason, decide
from cjudge.grading.diagnosis.case import Runs, explain
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.grading.words import words
from cjudge.sim.runtime import run_case

from .helpers import exercise

RING = "ring-allreduce"


def _facts(exercise_id: str, file: str) -> CaseFacts:
    """The facts of ``file``'s first failing case (or its first case) on the simulated ranks."""
    ex = exercise(exercise_id)
    code = (ex.path / file).read_text(encoding="utf-8")
    facts = None
    for spec in plan_cases(ex):
        facts = CaseFacts.of(ex, spec, run_case(ex.job_spec(code, "learner.py"), spec))
        if decide(CaseFacts.of(ex, spec, facts.raw)).verdict != "accepted":
            break
    assert facts is not None
    return facts


@pytest.mark.parametrize(("file", "verdict", "reason"), [
    ("solution.py", "accepted", Reason.CORRECT),
    ("wrong/allgather_adds_instead_of_copy.py", "wrong_answer", Reason.WRONG_RESULT),
    ("wrong/send_whole_tensor_to_everyone.py", "over_budget", Reason.OVER_BYTES),
    ("wrong/halves_every_step.py", "too_slow", Reason.TOO_SLOW),
    ("wrong/recv_before_send.py", "deadlock", Reason.STOPPED),
    ("wrong/calls_all_reduce.py", "forbidden_primitive", Reason.REFUSED),
])
def test_a_decision_is_a_verdict_and_its_reason_and_the_words_come_from_it(file, verdict, reason):
    facts = _facts(RING, file)
    decision = decide(facts)
    assert (decision.verdict, decision.reason) == (verdict, reason)
    assert decision.said is None  # no grader spoke: the decision itself holds no words
    assert not any(isinstance(v, str) and not isinstance(v, Reason) and v != verdict
                   for v in decision)
    graded = grade_case(CaseFacts.of(facts.exercise, facts.spec, facts.raw))
    assert (graded["message"], graded["message_zh"]) == words(facts, decision)
    assert graded["message"] and graded["message_zh"] != graded["message"]


def test_words_are_written_once_per_case(monkeypatch):
    calls: list[Decision] = []

    def counting(facts, decision):
        calls.append(decision)
        return words(facts, decision)

    monkeypatch.setattr(grade_module, "words", counting)
    ex = exercise(RING)
    code = (ex.path / "wrong/halves_every_step.py").read_text(encoding="utf-8")
    result = judge_code(ex, code, "learner.py", run_case, "sim", all_cases=True)
    assert len(calls) == len(result["cases"])
    assert [c.verdict for c in calls] == [c["verdict"] for c in result["cases"]]


def test_the_evidences_cause_is_in_the_one_message_grade_case_writes(monkeypatch):
    file = "wrong/allgather_adds_instead_of_copy.py"
    explained: list[str] = []

    def counting(facts, verdict, message, runs):
        explained.append(facts.spec["name"])
        return explain(facts, verdict, message, runs)

    monkeypatch.setattr(grade_module, "explain", counting)
    ex = exercise(RING)
    code = (ex.path / file).read_text(encoding="utf-8")
    result = judge_code(ex, code, "learner.py", run_case, "sim", explore=run_case)
    names = [case["name"] for case in result["cases"]]
    assert [name for name in explained if name in names] == names  # once a case (and once for
    assert result["cases"][-1]["smallest"]["name"] in explained  # the smallest that fails so)
    failing = next(case for case in result["cases"] if case["verdict"] != "accepted")
    facts = _facts(RING, file)
    assert facts.spec["name"] == failing["name"]
    graded = grade_case(facts, Runs(run_case, run_case, ex.job_spec(code, "learner.py")))
    assert "Cause: " in graded["message"] and "原因：" in graded["message_zh"]
    assert (graded["message"], graded["message_zh"]) == (failing["message"],
                                                         failing["message_zh"])
    assert (graded["message"], graded["message_zh"]) != words(facts, decide(facts))


def test_a_decision_without_its_evidence_is_the_judges_defect():
    facts = _facts(RING, "solution.py")
    with pytest.raises(ValueError, match="no words for over_bytes"):
        words(facts, Decision(decide(facts).verdict, Reason.OVER_BYTES))
