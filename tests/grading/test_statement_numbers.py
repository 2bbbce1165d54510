"""Numbers the statements promise, computed from what the judge uses: the tolerance of float
results (``values.TOLERANCE``) and time bounds from each exercise's own formula and topology
(an explicit, checked list: each entry names the number as the statement prints it)."""

from __future__ import annotations

import math

import pytest

from cjudge.contract.values import TOLERANCE
from cjudge.grading.submission import judge_code

from .helpers import exercise, run_sim_case

ALPHA, BETA = 5e-6, 450e9  # the chapter's 8 × H100, as the statements print it


def _text(exercise_id: str, zh: bool = False) -> str:
    name = "statement.zh.md" if zh else "statement.md"
    return (exercise(exercise_id).path / name).read_text(encoding="utf-8")


def _power(value: float) -> str:
    """``10^{-5}`` for 1e-5: how a statement writes a tolerance."""
    exponent = round(math.log10(value))
    assert 10.0 ** exponent == value
    return f"10^{{{exponent}}}"


@pytest.mark.parametrize("exercise_id", ["tp-mlp", "sequence-parallel"])
@pytest.mark.parametrize("zh", [False, True])
def test_a_float_exercise_states_the_tolerance_the_judge_applies(exercise_id, zh):
    text = _text(exercise_id, zh)
    assert "tolerance below" not in text and "下面规则中的容差" not in text  # promised, not given
    for dtype, tol in TOLERANCE.items():
        assert rf"\tau = {_power(tol)}\)" in text and f"`{dtype}`" in text, dtype


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs"


BOUNDS = [  # (exercise, the formula evaluated, where the statement prints it)
    ("double-binary-tree",  # (2 log2 n + k − 1)(α + 3·S/(2k)/β), n = 8, k = 4, S = 4 MiB
     (2 * 3 + 4 - 1) * (ALPHA + 3 * (4 * 2**20 / 8) / BETA), "at 4 MiB that is {}"),
    ("oneshot-twoshot",  # 2α + (n − 1)·S/β, n = 8, S = 32 KiB
     2 * ALPHA + 7 * 32 * 2**10 / BETA, "{} on 8 ranks at 32 KiB"),
]


@pytest.mark.parametrize(("exercise_id", "seconds", "where"), BOUNDS)
def test_a_time_bound_in_a_statement_is_its_formulas(exercise_id, seconds, where):
    assert where.format(_us(seconds)) in _text(exercise_id)
    assert _us(seconds) in _text(exercise_id, zh=True)


def test_the_exercises_time_bound_is_the_formula_the_statement_evaluates():
    for exercise_id, formula in [("double-binary-tree",
                                  "(2*log2(n) + chunks - 1)*(alpha + 3*S/(2*chunks)/beta)"),
                                 ("oneshot-twoshot", "2*alpha + (n-1)*S/beta")]:
        toml = (exercise(exercise_id).path / "exercise.toml").read_text(encoding="utf-8")
        bound = next(line for line in toml.splitlines() if line.startswith("time_bound"))
        assert formula.replace(" ", "") in bound.replace(" ", ""), bound


def test_a_wrong_files_time_in_a_statement_is_the_judges_model_of_it():
    """double-binary-tree's unpipelined contrast, 8 ranks at 4 MiB, as the judge models it."""
    ex = exercise("double-binary-tree")
    code = (ex.path / "wrong" / "no_pipelining.py").read_text(encoding="utf-8")
    result = judge_code(ex, code, "no_pipelining.py", run_sim_case, "sim", all_cases=True)
    case = next(c for c in result["cases"] if c["name"] == "8-ranks")
    assert case["verdict"] == "too_slow" and "S = 4 MiB" in case["message"], case["message"]
    modelled = case["message"].split("your modelled time is ")[1].split(",")[0]
    assert f"each half sent up whole before anything comes down, {modelled} at 4 MiB" in \
        _text("double-binary-tree")
    assert f"4 MiB 时 {modelled}" in _text("double-binary-tree", zh=True)
