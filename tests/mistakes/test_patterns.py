"""The pattern index (:mod:`.patterns`): every listed corpus file exists and asserts what its
English and Chinese messages name, every pattern is shown on at least three exercises, and a
file listed for the generic draw fails on a case where the diagnosis makes one."""

from __future__ import annotations

import pytest

from cjudge.grading.diagnosis.generic import worth_a_second_draw

from .corpus import HERE, case_named, exercise_of, gloo_record, header
from .patterns import PATTERNS


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_each_pattern_is_shown_on_three_exercises(pattern: int) -> None:
    files = [HERE / name for name in PATTERNS[pattern]]
    assert all(f.is_file() for f in files), [f for f in files if not f.is_file()]
    assert len({f.parent.name for f in files}) >= 3, PATTERNS[pattern]
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert all(header(text, "names")) and all(header(text, "names_zh")), f


def test_every_pattern_is_indexed() -> None:
    assert sorted(PATTERNS) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("name", PATTERNS[2])
def test_a_generic_draw_file_fails_where_one_is_made(name: str) -> None:
    path = HERE / name
    ex = exercise_of(path)
    assert worth_a_second_draw(ex, case_named(ex, gloo_record(path)[1]))
