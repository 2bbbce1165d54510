"""What a graded case shows beside its verdict, added once grading has decided it: the trace
view's ``timeline`` and, for a too-slow case, the critical path that timeline found, named in
its message (``model.slow``).

Grading (``cjudge.grading.grade.grade_case``) decides the verdict and draws nothing; every front door
that shows a case calls :func:`present_case` on it once (``submission.judge_code`` for the CLI, the
server and the browser). The smallest-case search, which compares verdicts only, does not.
"""

from __future__ import annotations

from ..contract.verdict_json import CaseResult
from ..contract.verdicts import Verdict
from ..grading.facts import CaseFacts
from ..model import slow
from .timeline import case_timeline


def present_case(facts: CaseFacts, case: CaseResult) -> None:
    """Add the graded ``case``'s timeline (in place); a too-slow case's message then names its
    critical path, read from the replay grading made (``facts.modelled``). The timeline is
    total (a view's failure is under its ``error``)."""
    case["timeline"] = case_timeline(facts, case)
    if case["verdict"] != Verdict.TOO_SLOW or facts.modelled is None:
        return
    case["message"], case["message_zh"] = slow.explain(facts.modelled, case["timeline"],
                                                       facts.raw["trace"],
                                                       facts.exercise.allowed)
