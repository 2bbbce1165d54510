"""No message calls a symmetric-memory load or store a send: every corpus file of an exercise
that moves data only by loads and stores (no call allowed, a symmetric-memory handle among its
arguments) is judged, and its messages, English and Chinese, never say "send"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.exercise.exercises import Exercise
from cjudge.grading.grade import plan_cases

from .corpus import FILES, exercise_of
from .test_mistakes import failing_case


def _handles_symm(value: object) -> bool:
    """Whether a case's input holds a symmetric-memory handle (at any depth)."""
    if isinstance(value, dict):
        return value.get("fn") == "symm" or any(_handles_symm(v) for v in value.values())
    return isinstance(value, list) and any(_handles_symm(v) for v in value)


def loads_and_stores(ex: Exercise) -> bool:
    """Whether the exercise's ranks move data only by loads and stores of symmetric memory."""
    return not ex.allowed and any(_handles_symm(c["inputs"]) for c in plan_cases(ex))


SYMM = [p for p in FILES if loads_and_stores(exercise_of(p))]


def test_the_corpus_has_files_that_load():
    assert len(SYMM) >= 3
    assert {p.parent.name for p in SYMM} == {"oneshot_twoshot"}  # the one such exercise today


@pytest.mark.parametrize("path", SYMM, ids=[p.stem for p in SYMM])
def test_a_load_is_never_called_a_send(path: Path):
    _, case = failing_case(path)
    smallest = case.get("smallest", {}).get("message", "")
    for text in (case["message"], smallest):
        assert not re.search(r"\bsen(d|ds|t|ding)\b", text), text
    assert "发送" not in case["message_zh"], case["message_zh"]
