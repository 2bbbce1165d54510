"""Conformance: the simulated runtime judges like the real one (real torch on the switch).

For every exercise, the reference and every known-wrong solution must get the same verdict
(the declared one) and, case by case, the same per-rank byte and message counts and the same
messages (source, destination, tag, bytes, in each sender's order) under the simulated runtime
(``runtime_sim``, what the browser runs) as under the real one. Cases run as the judge runs
them: all of them for the reference, up to the first failing one otherwise. (That the switch
itself behaves like gloo is ``tests/gloo``'s differential test.)
"""

from __future__ import annotations

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code

EXERCISES = load_exercises(default_root())
SUBMISSIONS = [
    pytest.param(ex, path, expect, id=f"{ex.id}/{path.name}")
    for ex in EXERCISES.values()
    for path, expect in [(ex.path / "solution.py", "accepted"),
                         *((w.path, w.expect.value) for w in ex.wrong)]
]


def _recording(run_case, raws: list):
    """``run_case`` that also keeps every raw report it gives."""
    def run(job, spec):
        raws.append(run_case(job, spec))
        return raws[-1]
    return run


def _messages(raw: dict) -> list[tuple]:
    """Every matched message as (src, dst, tag, bytes), in each sender's posting order."""
    position = {}
    for req in raw["trace"]["requests"]:
        position[req["id"]] = sum(1 for rank, _ in position.values() if rank == req["rank"])
        position[req["id"]] = (req["rank"], position[req["id"]])
    return [(m["src"], m["dst"], m["tag"], m["bytes"])
            for m in sorted(raw["trace"]["messages"], key=lambda m: position[m["send"]])]


def _summary(result: dict) -> list[tuple]:
    return [(c["name"], c["verdict"], c["bytes_sent"], c["messages_sent"])
            for c in result["cases"]]


@pytest.mark.parametrize("exercise, path, expect", SUBMISSIONS)
def test_sim_and_real_runtimes_agree(exercise, path, expect):
    from cjudge.real import runtime as runtime_real
    from cjudge.sim import runtime as runtime_sim

    code = path.read_text(encoding="utf-8")
    sim_raws: list = []
    real_raws: list = []
    sim = judge_code(exercise, code, path.name, _recording(runtime_sim.run_case, sim_raws), "sim")
    real = judge_code(exercise, code, path.name, _recording(runtime_real.run_case, real_raws),
                      "torch")
    assert (sim["verdict"], real["verdict"]) == (expect, expect), (sim["message"], real["message"])
    assert _summary(sim) == _summary(real)
    assert [_messages(r) for r in sim_raws] == [_messages(r) for r in real_raws]
