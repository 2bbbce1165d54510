"""The switch's own traces of the references (simulated runtime) replay to the closed forms."""

from __future__ import annotations

import pytest

from cjudge.cli.model import learner_trace
from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.model.case import ModelSpec, model_case

EXERCISES = load_exercises(default_root())


@pytest.mark.parametrize(("exercise", "collective", "expected"), [
    ("ring-allreduce", "all_reduce", 73.89e-6),
    ("alltoall-transpose", "all_to_all", 6.94e-6),
])
def test_reference_solution_replays_to_the_closed_form(exercise, collective, expected):
    ex = EXERCISES[exercise]
    got = learner_trace(ex, ex.path / "solution.py", 8)
    assert got is not None
    trace, run_size, params = got
    assert params == next(c.params for c in ex.cases if c.world_size == 8)  # the case it ran
    assert trace["world_size"] == 8
    out = model_case(trace, run_size, ModelSpec.from_table({"sizes": ["1MB"]}, collective))
    row = out.model["sizes"][0]
    assert row["complete"]
    assert row["time_s"] == pytest.approx(expected, rel=1e-3)
