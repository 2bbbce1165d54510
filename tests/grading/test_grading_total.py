"""Grading is total: whatever a rank reports, the judge answers with a verdict (never a crash,
never judge_error), and the text it answers with is valid UTF-8."""

from __future__ import annotations

import json
import logging

import pytest

from cjudge.contract import values
from cjudge.grading import submission
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.switch.core import empty_trace
from cjudge.switch.server import result_record

from .helpers import exercise

RAISES = "def ring_all_reduce(t):\n    raise ValueError('x')\n"


def raw_case(spec: dict, outputs: list, error: dict | None = None) -> dict:
    """A runtime's report of ``spec``: each rank returned its output (rank 0 failed with
    ``error``, if given)."""
    return {"name": spec["name"], "trace": empty_trace(len(outputs)), "stop": None,
            "wall_ms": 1.0, "stdout": "", "ranks": [
                {"rank": r, "state": "failed" if error and r == 0 else "returned",
                 "output": None if error and r == 0 else out,
                 "error": error if r == 0 else None} for r, out in enumerate(outputs)]}


def expected_outputs(exercise_id: str) -> tuple:
    """(exercise, its first case, a copy of that case's expected results)."""
    ex = exercise(exercise_id)
    spec = plan_cases(ex)[0]
    wants = ex.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    return ex, spec, json.loads(json.dumps(wants))


def test_a_rank_may_not_report_an_integer_beyond_64_bits():
    assert values.checked([(1 << 63) - 1, -(1 << 63), True]) == [(1 << 63) - 1, -(1 << 63), True]
    for bad in (1 << 63, -(1 << 63) - 1, [1, {"tuple": [10**400]}],
                {"shape": [2], "dtype": "int64", "data": [1, 10**400]}):
        with pytest.raises(values.Uncomparable):
            values.checked(bad)
    record = result_record({"output": {"shape": [1], "dtype": "float32", "data": [10**400]}})
    assert record["output"] is None and record["error"]["type"] == "OverflowError"
    assert "outside ±2⁶³" in record["error"]["message"]
    assert "超出 ±2⁶³" in record["error"]["message_zh"]


def test_a_number_too_large_for_a_float_is_wrong_not_a_crash():
    assert not values.element_matches(10**400, 1.0, "float32")
    assert not values.close(-10**400, 1.0, 1e-6, 0.0) and values.close(1, 1.0, 0.0, 0.0)
    ex, spec, outputs = expected_outputs("ring-allreduce")
    outputs[1]["data"][3] = 10**5000  # more digits than str() may write
    case = grade_case(CaseFacts.of(ex, spec, raw_case(spec, outputs)))
    assert case["verdict"] == "wrong_answer"
    assert "rank 1: first wrong element at index 3" in case["message"]
    assert "got ~1e5000" in case["message"]


@pytest.mark.parametrize("hook", ["diagnose", "chunk_of"])
def test_a_failing_grader_hook_drops_its_diagnosis_not_the_verdict(hook, monkeypatch, caplog):
    ex, spec, outputs = expected_outputs("ring-allreduce")
    for rank in range(2):  # two wrong chunks: the grader's chunks are asked for
        outputs[rank]["data"][0] += 1.0

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a grader's bug")

    monkeypatch.setattr(ex.grader, hook, broken)
    with caplog.at_level(logging.ERROR, logger="cjudge.grading.compare"):
        case = grade_case(CaseFacts.of(ex, spec, raw_case(spec, outputs)))
    assert case["verdict"] == "wrong_answer"
    assert case["message"].startswith(f"case {spec['name']}, rank 0: first wrong element at "
                                      "index 0")
    assert "dropped a diagnosis" in caplog.text and "a grader's bug" in caplog.text


def test_a_grading_failure_is_the_judges_error_with_its_version(monkeypatch, caplog):
    ex, spec, outputs = expected_outputs("ring-allreduce")

    def broken(*args, **kwargs):
        raise KeyError("the judge's bug")

    monkeypatch.setattr(submission, "grade_case", broken)
    with caplog.at_level(logging.ERROR, logger="cjudge.grading.submission"):
        result = submission.judge_code(ex, RAISES, "learner.py", lambda job, s: raw_case(s, outputs),
                                  "sim", only_samples=True)
    assert result["verdict"] == "judge_error"
    assert "defect of the judge, not of your code" in result["message"]
    assert "KeyError" in result["message"] and "评测机的缺陷" in result["message_zh"]
    assert result["judge_version"] and result["exercise_hash"] == ex.content_hash
    assert "grading failed" in caplog.text


def test_a_ranks_text_is_made_valid_utf8_where_it_enters_the_judge():
    ex, spec, outputs = expected_outputs("ring-allreduce")
    error = {"kind": "exception", "type": "ValueError", "message": "bad \ud800 text",
             "traceback": "Traceback\n  \udfff\n", "line": 2}

    def run_case(job, s):
        return dict(raw_case(s, outputs, error), stdout="[0] \ud83d\n")

    result = submission.judge_code(ex, RAISES, "learner.py", run_case, "sim", only_samples=True)
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # no lone surrogate: it prints
    assert result["verdict"] == "runtime_error"
    assert result["message"] == "rank 0, line 2 raised ValueError: bad \\ud800 text"
    assert result["cases"][0]["details"] == ["Traceback\n  \\udfff\n"]
    assert result["stdout"].endswith("[0] \\ud83d\n")
