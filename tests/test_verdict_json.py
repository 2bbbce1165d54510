"""NaN and infinities in a verdict: graded as wrong, written as strict JSON ("nan", "inf",
"-inf" where a number stands), on the simulated runtime."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from cjudge.contract.verdict_json import VerdictJSON, dumps, json_safe
from cjudge.exercise.exercises import default_root, load_exercise
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case


def strict(text: str) -> Any:
    """``text`` read as JSON proper: ``NaN`` or ``Infinity`` there is an error."""
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def sim(exercise_id: str, code: str, samples: bool = True) -> VerdictJSON:
    exercise = load_exercise(default_root() / exercise_id)
    return judge_code(exercise, code, "mine.py", run_case, "sim", only_samples=samples)


def test_json_safe_encodes_every_non_finite_float_and_keeps_the_rest() -> None:
    value = {"a": [1.5, math.nan, (math.inf, -math.inf)], "b": "nan", "c": 3, "d": None}
    assert json_safe(value) == {"a": [1.5, "nan", ["inf", "-inf"]], "b": "nan", "c": 3,
                                "d": None}
    assert strict(dumps(value)) == json_safe(value)


def test_dumps_refuses_a_nan_it_did_not_encode() -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        dumps({"x": object()}, default=lambda _: math.nan)


def test_the_ring_attention_starters_nan_sample_is_a_wrong_answer_in_strict_json() -> None:
    starter = (default_root() / "ring-attention" / "starter.py").read_text(encoding="utf-8")
    result = sim("ring-attention", starter)
    assert result["verdict"] == "wrong_answer"
    assert "got nan" in result["message"] and "实际为 nan" in result["message_zh"]
    outputs = strict(dumps(result))["cases"][0]["sample"]["outputs"]
    assert outputs[0]["data"][0] == "nan"


@pytest.mark.parametrize(("value", "said"), [("math.nan", "nan"), ("math.inf", "inf"),
                                             ("-math.inf", "-inf")])
def test_a_non_finite_number_returned_is_wrong_and_named(value: str, said: str) -> None:
    code = f"import math\ndef modeled_time(*args):\n    return {value}\n" \
           f"def busbw(*args):\n    return {value}\n"
    result = sim("alpha-beta", code)
    assert result["verdict"] == "wrong_answer"
    assert f"got {said}" in result["message"]
    assert strict(dumps(result))["verdict"] == "wrong_answer"


def test_an_infinite_tensor_is_wrong_and_named() -> None:
    code = "def ring_all_reduce(t):\n    t.fill_(float('-inf'))\n"
    result = sim("ring-allreduce", code)
    assert result["verdict"] == "wrong_answer" and "got -inf" in result["message"]
    sample = strict(dumps(result))["cases"][0]["sample"]
    assert set(sample["outputs"][0]["data"]) == {"-inf"}
