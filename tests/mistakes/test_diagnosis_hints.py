"""A grader's hint (its reading of the first wrong element) after the run's first departure:
kept, after the cause, where the run departs only by its values; dropped where the evidence
names the fault itself and so contradicts the guess."""

from __future__ import annotations

from .corpus import HERE
from .test_mistakes import failing_case


def test_a_departure_by_values_keeps_the_graders_hint_after_it() -> None:
    _, case = failing_case(HERE / "compressed_allreduce" / "residual_from_gradient.py")
    cause, _, hint = case["message"].partition(". Hint: ")
    assert "first departs from the int8 ring at rank 0's reduce-scatter step 1" in cause
    assert hint.startswith("step 2 adds a wrong residual: step 1 kept g − codes·scale")
    assert "。提示：第 2 步加上的残差不对" in case["message_zh"]


def test_a_departure_that_names_the_fault_drops_the_contradicted_guess() -> None:
    # the reduce-scatter matched the ring's: "never reduced" is what the evidence contradicts
    _, case = failing_case(HERE / "ring_allreduce" / "allgather_off_by_one.py")
    assert "your reduce-scatter matches the ring's" in case["message"]
    assert "never reduced" not in case["message"] and "Hint:" not in case["message"]
