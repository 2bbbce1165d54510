"""The verdict is typed as ``cjudge.contract.verdicts.Verdict`` from the kernel to the API's response
models, and travels as its code: the models refuse a code the kernel does not define and leave
out a field it does not define, and a ``Verdict`` member is written as the plain string it
always was; a verdict cut to the stored bound is still one they read."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from cjudge.contract.verdict_json import dumps
from cjudge.contract.verdicts import Verdict
from server.api.schemas import SubmissionSummary, VerdictOut
from server.jobqueue import bound_result


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
    {"verdict": "accepted", "cases": [{"name": "a", "verdict": "solved"}]},
])
def test_a_code_the_kernel_does_not_define_is_refused(verdict: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        VerdictOut.model_validate(verdict)


def test_a_field_the_kernel_does_not_define_is_left_out() -> None:
    out = VerdictOut.model_validate({"verdict": "accepted", "score": 1, "cases": [
        {"name": "a", "verdict": "accepted", "score": 1, "message": "m"}]})
    assert json.loads(out.model_dump_json()) == {
        "verdict": "accepted", "cases": [{"name": "a", "verdict": "accepted", "message": "m"}]}


def test_a_verdict_cut_to_its_bound_is_still_a_valid_answer() -> None:
    trace = [{"rank": 0, "seq": i, "op": "send", "peer": 1, "bytes": 4, "count": 1,
              "dtype": "float32", "line": 3, "api": "send"} for i in range(2000)]
    case = {"name": "a", "verdict": "accepted", "bytes_sent": [4], "trace": trace,
            "model": {"sizes": ["x" * 400] * 50}, "sample": {"inputs": [[1.0] * 400],
                                                             "outputs": [], "expected": []}}
    cut = bound_result({"verdict": "accepted", "stdout": "y" * 9000, "cases": [case]}, 4096)
    assert len(dumps(cut)) <= 4096
    assert cut["cases"][0]["trace"] == [] and cut["cases"][0]["trace_truncated"] is True
    VerdictOut.model_validate(cut)  # what GET /api/submissions/{id} answers with
