"""A submission's cases: the sample from the exercise's public seed (the values a learner saw in
the browser), the hidden cases from the submission's secret seed."""

from __future__ import annotations

from cjudge.exercise.exercises import load_exercises
from cjudge.grading.grade import plan_cases
from server.localserver import EXERCISES
from server.sandbox.cases import submission_cases


def test_sample_cases_use_the_public_seed_and_hidden_cases_the_secret_one() -> None:
    exercise = load_exercises(EXERCISES)["ring-allreduce"]
    public = plan_cases(exercise)
    secret = plan_cases(exercise, 12345)
    cases = submission_cases(exercise, 12345)
    assert [c["name"] for c in cases] == [c["name"] for c in public]
    assert any(c["sample"] for c in cases) and any(not c["sample"] for c in cases)
    for case, mine, theirs in zip(cases, public, secret, strict=True):
        want = mine if case["sample"] else theirs
        assert case["inputs"] == want["inputs"], case["name"]
    hidden = [(c, p) for c, p in zip(cases, public, strict=True) if not c["sample"]]
    assert any(c["inputs"] != p["inputs"] for c, p in hidden), "hidden cases do not change with the seed"
