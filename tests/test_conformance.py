"""Conformance: the simulated runtime judges like real torch + gloo.

For every exercise, the reference and every known-wrong solution must get the same verdict
(the declared one) and, case by case, the same per-rank byte and message counts under the
simulated runtime (``runtime_sim``, what the browser runs) as under the real one. Cases run as
the judge runs them: all of them for the reference, up to the first failing one otherwise.
"""

from __future__ import annotations

import pytest

from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code

EXERCISES = load_exercises(default_root())
SUBMISSIONS = [
    pytest.param(ex, path, expect, id=f"{ex.id}/{path.name}")
    for ex in EXERCISES.values()
    for path, expect in [(ex.path / "solution.py", "accepted"),
                         *((w.path, w.expect.value) for w in ex.wrong)]
]


def _summary(result: dict) -> list[tuple]:
    return [(c["name"], c["verdict"], c["bytes_sent"], c["messages_sent"])
            for c in result["cases"]]


@pytest.mark.parametrize("exercise, path, expect", SUBMISSIONS)
def test_sim_and_real_runtimes_agree(exercise, path, expect):
    from cjudge import runtime_real, runtime_sim

    code = path.read_text(encoding="utf-8")
    sim = judge_code(exercise, code, path.name, runtime_sim.run_case, "sim")
    real = judge_code(exercise, code, path.name, runtime_real.run_case, "torch-gloo")
    assert (sim["verdict"], real["verdict"]) == (expect, expect), (sim["message"], real["message"])
    assert _summary(sim) == _summary(real)
