"""Every exercise's floor is the judge checking itself: no reference and no wrong file that the
model measures goes below the lowest time and bytes any correct algorithm reaches."""

from __future__ import annotations

import pytest

from cjudge.contract.verdicts import Verdict
from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.model.case import FLOOR_SLACK, Floor, ModelSpec, model_case
from cjudge.model.reference import ring_all_reduce
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
#: wrong files whose every case is worth measuring (a correct answer the model judges)
MEASURED = (Verdict.OVER_BUDGET, Verdict.TOO_SLOW)
FILES = [(ex.id, "solution.py", True) for ex in EXERCISES.values()] + [
    (ex.id, f"wrong/{w.path.name}", w.expect in MEASURED)
    for ex in EXERCISES.values() for w in ex.wrong]


def at_or_above(case: dict) -> list[str]:
    """What in a graded case is below its exercise's floor (nothing: [])."""
    floor = case["model"]["floor"]
    low = [f"{row['size']} B: {row['time_s']} s < floor {row['floor_s']} s"
           for row in case["model"]["sizes"]
           if row["time_s"] < row["floor_s"] * (1 - FLOOR_SLACK)]
    if max(case["bytes_sent"]) < floor["bytes_floor"] * (1 - FLOOR_SLACK):
        low.append(f"{max(case['bytes_sent'])} B sent < floor {floor['bytes_floor']} B")
    assert floor["below"] == bool(low)
    return low


@pytest.mark.parametrize(("exercise_id", "name", "every_case"), FILES,
                         ids=[f"{e}/{n}" for e, n, _ in FILES])
def test_reference_and_wrong_files_stay_at_or_above_the_floor(exercise_id, name, every_case):
    ex = EXERCISES[exercise_id]
    code = (ex.path / name).read_text(encoding="utf-8")
    result = judge_code(ex, code, name, run_case, "sim", all_cases=every_case)
    measured = [c for c in result["cases"] if c.get("model", {}).get("modelled") is not False
                and "model" in c]
    for case in measured:
        assert at_or_above(case) == [], (case["name"], case["verdict"])
    if name == "solution.py" and ex.id != "alpha-beta":  # alpha-beta sends nothing
        assert measured and all(row["floor_s"] > 0 for c in measured for row in
                                c["model"]["sizes"] if c["world_size"] > 1)


def test_every_exercise_declares_a_floor():
    assert all(isinstance(ex.model.floor, Floor) for ex in EXERCISES.values())


def test_a_run_below_its_floor_is_flagged():
    """The ring on 8 ranks at 1 MB against a floor 10 % above its own time: flagged, with a
    note in both languages; against its real floor: not."""
    trace, size = ring_all_reduce(8, 10**6), 10**6
    ring = "2*(n-1)*alpha + 2*(n-1)/n*S/beta"
    high = ModelSpec.from_table({"sizes": ["1MB"], "floor": {"time": f"1.1*({ring})",
                                                             "bytes": "0"}})
    model = model_case(trace, size, high, sent=[2 * 7 * size // 8] * 8).model
    assert model["floor"]["below"] and "not ranked" in model["floor"]["note"]["en"]
    assert "不参与排名" in model["floor"]["note"]["zh"]
    fair = ModelSpec.from_table({"sizes": ["1MB"], "floor": {
        "time": "min(n-1, 1)*alpha + 2*(n-1)/n*S/beta", "bytes": "2*(n-1)/n*S"}})
    assert not model_case(trace, size, fair, sent=[2 * 7 * size // 8] * 8).model["floor"]["below"]
    assert model_case(trace, size, fair, sent=[0] * 8).model["floor"]["below"]  # bytes
