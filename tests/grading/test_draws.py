"""Verdicts do not depend on the draw: every exercise's reference and wrong files get their
declared verdict under each of 12 seeds on the simulated runtime (the server draws fresh inputs
for every submission, so any draw may be the one a learner is graded by)."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.draws import DRAWS, draw_seeds, other_draws

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


def test_a_verdict_that_depends_on_the_draw_is_found_with_its_seeds() -> None:
    ex = exercise("ring-allreduce")  # wrong when one element of one case is drawn positive
    code = ex.solution + textwrap.dedent("""
        _ring = ring_all_reduce


        def ring_all_reduce(t):
            wrong = t.numel() == 1000 and dist.get_rank() == 0 and float(t[0]) > 0
            _ring(t)
            if wrong:
                t.zero_()
        """)
    seeds = draw_seeds(ex)
    others = other_draws(ex, code, "learner.py", "accepted", seeds)
    assert 0 < len(others) < len(seeds)
    assert {verdict for _, verdict in others} == {"wrong_answer"}
    assert {seed for seed, _ in others} < set(seeds)
