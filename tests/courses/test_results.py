"""A verdict as each course platform's result file (``cjudge.courses.results``): the platforms'
documented fields (``schemas``), one test per case, hidden cases hidden, the headline."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cjudge.courses.results import REPORTS, case_tests, headline, write_report
from cjudge.exercise.exercises import default_root, load_exercise

from .schemas import SCHEMAS

RING = load_exercise(default_root() / "ring-allreduce")
WRONG = "8-ranks"


def verdict(wrong: str | None = WRONG) -> dict:
    """A verdict of ``RING``: every case accepted but ``wrong``; the 8-rank cases modelled."""
    cases = []
    for spec in RING.cases:
        case = {"name": spec.name, "world_size": spec.world_size, "bytes_sent": [40] * spec.world_size,
                "bytes_bound": 48, "wall_ms": 12.5, "verdict": "accepted",
                "message": "correct", "message_zh": "正确"}
        if spec.world_size == 8:
            case["model"] = {"sizes": [{"size": 10**6, "time_s": 7.389e-5, "complete": True}]}
        if spec.name == wrong:
            case |= {"verdict": "wrong_answer", "message": "expected 5555, got 5505",
                     "message_zh": "应为 5555，实际为 5505"}
        cases.append(case)
    first = next((c for c in cases if c["verdict"] != "accepted"), cases[0])
    return {"exercise": RING.id, "verdict": first["verdict"], "message": first["message"],
            "message_zh": first["message_zh"], "cases": cases}  # as the judge: the first failure's


@pytest.mark.parametrize("platform", list(REPORTS))
def test_each_result_file_has_its_platforms_fields(platform: str) -> None:
    for result in (verdict(), verdict(None), {"verdict": "compile_error", "cases": [],
                                               "message": "SyntaxError", "message_zh": "语法错误"}):
        SCHEMAS[platform].model_validate(REPORTS[platform]([(RING, result, "ring.py")]))


def test_one_test_per_case_with_bytes_time_and_message() -> None:
    tests = case_tests(RING, verdict())
    assert [t.name for t in tests] == [f"ring-allreduce: {c.name}" for c in RING.cases]
    assert [t.passed for t in tests] == [c.name != WRONG for c in RING.cases]
    wrong = next(t for t in tests if not t.passed)
    assert "40 B of 48 B allowed" in wrong.output and "expected 5555, got 5505" in wrong.output
    assert "应为 5555" in wrong.output and "73.9 µs at 1 MB" in wrong.output


def test_gradescope_scores_hides_and_ranks() -> None:
    out = REPORTS["gradescope"]([(RING, verdict(), "ring.py")])
    assert out["score"] == len(RING.cases) - 1
    assert {t["visibility"] for t in out["tests"] if "sample" in t["name"]} == {"visible"}
    assert {t["visibility"] for t in out["tests"] if "sample" not in t["name"]} == \
        {"after_due_date"}
    assert out["leaderboard"] == []  # a wrong answer is not ranked
    best = REPORTS["gradescope"]([(RING, verdict(None), "ring.py")])["leaderboard"]
    assert best == [{"name": "ring-allreduce: modelled µs at 1 MB", "value": 73.89, "order": "asc"},
                    {"name": "ring-allreduce: bytes (busiest rank)", "value": 40, "order": "asc"}]


def test_prairielearn_and_github_show_hidden_cases_verdict_only() -> None:
    pl = REPORTS["prairielearn"]([(RING, verdict(), "ring.py")])
    assert pl["gradable"] and pl["score"] == pytest.approx(6 / 7)
    gh = REPORTS["github"]([(RING, verdict(), "ring.py")])
    assert gh["status"] == "fail" and gh["max_score"] == 7
    at = [c.name for c in RING.cases].index(WRONG)
    assert pl["tests"][at]["message"] == gh["tests"][at]["message"] == "Wrong answer / 答案错误"
    assert "busiest rank sent 40 B" in pl["tests"][0]["message"]  # a sample shows its details


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("platform", list(REPORTS))
def test_a_failing_hidden_case_shows_only_its_name_and_verdict(platform: str,
                                                               tmp_path: Path) -> None:
    assert not next(c for c in RING.cases if c.name == WRONG).sample
    write_report(platform, [(RING, verdict(), "ring.py")], tmp_path / "results.json")
    text = list(strings(json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))))
    leaks = [s for s in text for fragment in ("expected 5555", "5505", "应为 5555")
             if fragment in s]
    assert leaks == []
    assert any(f"ring-allreduce: {WRONG}" in s for s in text)
    assert any("Wrong answer / 答案错误" in s for s in text)


def test_a_file_that_does_not_compile_costs_no_prairielearn_attempt() -> None:
    pl = REPORTS["prairielearn"]([(RING, {"verdict": "compile_error", "cases": [],
                                          "message": "SyntaxError"}, "ring.py")])
    assert not pl["gradable"] and pl["format_errors"] == ["SyntaxError"]


def test_the_headline_is_the_largest_case_at_its_headline_size() -> None:
    def two(big: dict) -> dict:
        return {"cases": [{"name": "2-ranks", "world_size": 2, "bytes_sent": [1, 1]},
                          {"name": "8-ranks", "world_size": 8, "bytes_sent": [5, 9, 7]} | big]}

    def sizes(*rows: tuple[int, float]) -> list[dict]:
        return [{"size": s, "time_s": t, "complete": True} for s, t in rows]

    assert headline(two({})) == {"headline_case": "8-ranks", "bytes_sent": 9,
                                 "model_time_s": None, "model_size": None, "below_floor": False}
    largest = headline(two({"model": {"sizes": sizes((4096, 1e-5), (10**9, 3.9e-3))}}))
    assert (largest["model_time_s"], largest["model_size"]) == (3.9e-3, 10**9)
    chosen = headline(two({"model": {"sizes": sizes((4096, 1e-5), (10**6, 7e-5)),
                                     "headline": 4096}}))
    assert chosen["model_time_s"] == 1e-5
    assert headline({"verdict": "judge_error", "cases": []})["bytes_sent"] is None


@pytest.mark.parametrize("platform", list(REPORTS))
def test_a_result_file_with_nan_is_strict_json(platform: str, tmp_path: Path) -> None:
    """A NaN or infinity anywhere in a verdict (here an accepted run's modelled time, which
    Gradescope's leaderboard shows) is written as a value JSON has, never ``Infinity``."""
    result = verdict(None)
    for case in result["cases"]:
        case["wall_ms"] = float("nan")
        for row in case.get("model", {}).get("sizes", []):
            row["time_s"] = float("inf")
    path = tmp_path / "results.json"
    write_report(platform, [(RING, result, "ring.py")], path)

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in a result file")

    json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
