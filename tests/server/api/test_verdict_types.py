"""The verdict is typed as ``cjudge.verdicts.Verdict`` from the kernel to the API's response
models, and travels as its code: the models refuse a code or a field the kernel does not
define, and a ``Verdict`` member is written as the plain string it always was."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from cjudge.verdict_json import dumps
from cjudge.verdicts import Verdict
from server.api.schemas import SubmissionSummary, VerdictOut


def test_a_verdict_member_is_its_code_on_the_wire() -> None:
    summary = SubmissionSummary(id=1, exercise="ring-allreduce", user_id=1, status="done",
                                verdict=Verdict.TOO_SLOW, created_at=datetime.now(UTC),
                                finished_at=None, content_hash="h")
    assert json.loads(summary.model_dump_json())["verdict"] == "too_slow"
    assert dumps({"verdict": Verdict.WRONG_ANSWER}) == '{"verdict": "wrong_answer"}'


def test_the_response_model_reads_each_code_as_the_enum() -> None:
    out = VerdictOut.model_validate({"verdict": "over_budget",
                                     "cases": [{"name": "a", "verdict": "accepted"}]})
    assert out.root["verdict"] is Verdict.OVER_BUDGET
    assert out.cases[0].root["verdict"] is Verdict.ACCEPTED
    assert json.loads(out.model_dump_json())["verdict"] == "over_budget"


@pytest.mark.parametrize("verdict", [
    {"verdict": "partly_right"},  # a code the kernel does not define
    {"verdict": "accepted", "score": 1},  # a field it does not define
    {"verdict": "accepted", "cases": [{"name": "a", "verdict": "accepted", "score": 1}]},
])
def test_what_the_kernel_does_not_define_is_refused(verdict: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        VerdictOut.model_validate(verdict)
