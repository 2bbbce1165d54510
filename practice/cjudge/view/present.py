"""What a graded case shows beside its verdict, added once grading has decided it: the trace
view's ``timeline`` and, for a too-slow case, the critical path that timeline found, named in
its message (``model.slow``).

Grading (``cjudge.grading.grade_case``) decides the verdict and draws nothing; every front door
that shows a case calls :func:`present_case` on it once (``judge.judge_code`` for the CLI, the
server and the browser). The smallest-case search, which compares verdicts only, does not.
"""

from __future__ import annotations

from typing import Any

from ..model import slow
from ..model.case import model_case
from ..protocol import CaseSpec, RawCase
from ..switch.accounting import bytes_per_rank
from ..values import input_bytes
from ..verdict_json import CaseResult
from ..verdicts import Verdict
from .timeline import case_timeline


def present_case(exercise: Any, spec: CaseSpec, raw: RawCase, case: CaseResult) -> None:
    """Add the graded ``case``'s timeline (in place); a too-slow case's message then names its
    critical path. The timeline is total (a view's failure is under its ``error``)."""
    case["timeline"] = case_timeline(exercise, spec, raw, case)
    if case["verdict"] != Verdict.TOO_SLOW:
        return
    sent, _ = bytes_per_rank(raw["trace"])  # the model as grading made it, from the same facts
    modelled = model_case(raw["trace"], input_bytes(spec), exercise.model,
                          case_name=spec["name"], params=spec["params"], sent=sent)
    case["message"], case["message_zh"] = slow.explain(modelled, case["timeline"], raw["trace"],
                                                       exercise.allowed)
