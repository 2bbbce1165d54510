"""The public attack corpus on the leaderboards (issue "Verdicts a course can grade by"): each
file in ``board_attacks/`` is the cheapest way we found to improve a ranked measure (bytes,
modelled time, compute, memory) of one exercise without doing its taught work. Judged with the
server's fresh-draw policy (several seeds), none may top the board: each ends in a verdict its
header allows, never ``judge_error``, and a fully accepted run never ranks ahead of the
reference (modelled time at the headline size, then bytes) nor measures below its floor.

Header lines of an attack file: ``# exercise: <id>``, ``# expect: <verdict>[|<verdict>…]`` (the
verdicts that stop it; ``accepted`` where the trick is allowed but must not pay) and
``# trick: <what it tries>``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from cjudge.courses.results import headline
from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
ATTACKS = sorted((Path(__file__).parent / "board_attacks").glob("*.py"))
#: the seeds each attack is judged under: the exercise's own and three fresh draws
SEEDS = (None, 1, 2, 3)


def _header(text: str, key: str) -> str:
    found = re.search(rf"^# {key}: (.+)$", text, re.MULTILINE)
    assert found is not None, f"the attack has no '# {key}:' line"
    return found.group(1).strip()


@functools.cache
def _reference(exercise_id: str, seed: int | None) -> dict[str, Any]:
    ex = EXERCISES[exercise_id]
    return judge_code(ex, (ex.path / "solution.py").read_text(), "solution.py", run_case, "sim",
                      seed=seed, all_cases=True)


def _rank_key(result: dict[str, Any]) -> tuple[float, float]:
    """What a leaderboard ranks by: modelled time at the headline size, then bytes."""
    top = headline(result)
    return (top["model_time_s"] if top["model_time_s"] is not None else float("inf"),
            top["bytes_sent"] if top["bytes_sent"] is not None else float("inf"))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("attack", ATTACKS, ids=[p.stem for p in ATTACKS])
def test_an_attack_never_tops_the_board(attack: Path, seed: int | None) -> None:
    text = attack.read_text()
    ex = EXERCISES[_header(text, "exercise")]
    allowed = _header(text, "expect").split("|")
    _header(text, "trick")
    result = judge_code(ex, text, attack.name, run_case, "sim", seed=seed, all_cases=True)
    assert result["verdict"] != "judge_error", [c.get("message") for c in result["cases"]]
    assert result["verdict"] in allowed, [c.get("message") for c in result["cases"]]
    if result["verdict"] == "accepted":
        assert not headline(result)["below_floor"]
        ref = _reference(ex.id, seed)
        assert _rank_key(result) >= _rank_key(ref), (_rank_key(result), _rank_key(ref))


def test_the_corpus_is_not_empty() -> None:
    assert len(ATTACKS) >= 7
