"""Verdicts do not depend on the draw: every exercise's reference and wrong files get their
declared verdict under each of 12 seeds on the simulated runtime (the server draws fresh inputs
for every submission, so any draw may be the one a learner is graded by)."""

from __future__ import annotations

import pytest

from cjudge.exercise.draws import DRAWS, draw_seeds, other_draws

from .helpers import EXERCISES, exercise


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_every_draw_gets_the_declared_verdict(exercise_id: str) -> None:
    ex = exercise(exercise_id)
    seeds = draw_seeds(ex)
    assert len(seeds) == DRAWS >= 12
    files = [(ex.path / "solution.py", "accepted")] + [(w.path, w.expect.value) for w in ex.wrong]
    failing = {path.name: others for path, want in files
               if (others := other_draws(ex, path.read_text(encoding="utf-8"), path.name, want,
                                         seeds))}
    assert not failing, f"(seed, verdict) of the draws with another verdict: {failing}"

