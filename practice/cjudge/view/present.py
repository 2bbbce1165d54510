"""What a graded case shows beside its verdict, added once grading has decided it: the trace
view's ``timeline``, drawn from the case's facts (its schedule and critical path).

Grading (``cjudge.grading.grade.grade_case``) decides the verdict and writes its words, a too-slow
case's critical path included (``model.slow``); the view draws and writes no words. Every front
door that shows a case calls :func:`present_case` on it once (``submission.judge_code`` for the
CLI, the server and the browser). The smallest-case search, which compares verdicts only, does
not.
"""

from __future__ import annotations

from ..contract.verdict_json import CaseResult
from ..grading.facts import CaseFacts
from .timeline import case_timeline


def present_case(facts: CaseFacts, case: CaseResult) -> None:
    """Add the graded ``case``'s timeline (in place). The timeline is total (a view's failure
    is under its ``error``)."""
    case["timeline"] = case_timeline(facts, case)
