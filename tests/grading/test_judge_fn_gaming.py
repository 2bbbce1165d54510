"""The tricks that beat the judge's functions when they were closures in the rank (read the
params, mute the charge, spend it up front, probe the expert once) never beat the reference now:
each attack in ``tests/server/sandbox/attacks/judge_fn_*.py`` ends in its clean verdict on the simulated
runtime, and no case it passes is modelled faster or sends fewer bytes than the reference's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
ATTACKS = sorted((Path(__file__).parents[1] / "server" / "sandbox" / "attacks").glob("judge_fn_*.py"))


def _header(text: str, key: str) -> str:
    return re.search(rf"^# {key}: (.+)$", text, re.MULTILINE).group(1)


def _headline(case: dict) -> list[float]:
    """A case's modelled time at each size."""
    return [row["time_s"] for row in case["model"]["sizes"]]


@pytest.mark.parametrize("attack", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_a_judge_function_trick_never_beats_the_reference(attack: Path) -> None:
    text = attack.read_text()
    ex = EXERCISES[_header(text, "exercise")]
    result = judge_code(ex, text, attack.name, run_case, "sim", all_cases=True)
    assert result["verdict"] in _header(text, "expect").split("|"), result["message"]
    reference = judge_code(ex, (ex.path / "solution.py").read_text(), "solution.py", run_case,
                           "sim", all_cases=True)
    best = {c["name"]: c for c in reference["cases"]}
    for case in result["cases"]:
        if case["verdict"] == "accepted":
            ref = best[case["name"]]
            assert max(case["bytes_sent"]) >= max(ref["bytes_sent"]), case["name"]
            if "model" in ref:
                assert all(t >= r for t, r in zip(_headline(case), _headline(ref), strict=True))


def test_the_attacks_cover_both_exercises_with_judge_functions() -> None:
    assert {_header(p.read_text(), "exercise") for p in ATTACKS} == {"pipeline-gpipe",
                                                                     "moe-dispatch-combine"}
