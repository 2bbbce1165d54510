"""The chapter's code on the simulated runtime: its scripts verbatim, and both exercises."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case

from .helpers import calls, data, run

DATA = Path(__file__).resolve().parents[1] / "data"
EXERCISES = load_exercises(default_root())

#: what the chapter prints for collectives.py with 4 ranks
CHAPTER_OUTPUT = """输入
  rank 0: [0.0, 1.0, 2.0, 3.0]
  rank 1: [10.0, 11.0, 12.0, 13.0]
  rank 2: [20.0, 21.0, 22.0, 23.0]
  rank 3: [30.0, 31.0, 32.0, 33.0]
all_reduce（求和）
  rank 0: [60.0, 64.0, 68.0, 72.0]
  rank 1: [60.0, 64.0, 68.0, 72.0]
  rank 2: [60.0, 64.0, 68.0, 72.0]
  rank 3: [60.0, 64.0, 68.0, 72.0]
reduce_scatter
  rank 0: [60.0]
  rank 1: [64.0]
  rank 2: [68.0]
  rank 3: [72.0]
all_gather（接在 reduce_scatter 后面）
  rank 0: [60.0, 64.0, 68.0, 72.0]
  rank 1: [60.0, 64.0, 68.0, 72.0]
  rank 2: [60.0, 64.0, 68.0, 72.0]
  rank 3: [60.0, 64.0, 68.0, 72.0]
all_to_all
  rank 0: [0.0, 10.0, 20.0, 30.0]
  rank 1: [1.0, 11.0, 21.0, 31.0]
  rank 2: [2.0, 12.0, 22.0, 32.0]
  rank 3: [3.0, 13.0, 23.0, 33.0]
reduce_scatter + all_gather == all_reduce： True"""


def test_the_chapters_collectives_script_prints_what_the_chapter_shows():
    code = (DATA / "chapter_collectives.py").read_text() + "\n\ndef noop(t):\n    return t\n"
    raw = run(code, [data([0.0])] * 4, function="noop")
    assert raw["stop"] is None and all(r["state"] == "returned" for r in raw["ranks"])
    assert raw["stdout"] == "\n".join(f"[rank 0] {line}" for line in CHAPTER_OUTPUT.splitlines())


def test_the_chapters_ring_script_runs_verbatim_and_its_own_check_passes():
    raw = run((DATA / "chapter_ring_allreduce.py").read_text(), [data([1.0] * 8)] * 4,
              function="ring_all_reduce", output="inplace", allowed=["send", "recv"])
    assert [r["output"]["data"] for r in raw["ranks"]] == [[4.0] * 8] * 4
    assert raw["stdout"].splitlines()[1:] == [
        "[rank 0] 与 dist.all_reduce 结果一致： True",
        "[rank 0] 每个 rank 发送的字节： [6144, 6144, 6144, 6144] = 2(n-1)/n × 4096 = 6144",
    ]
    sent = [sum(e["bytes"] for e in calls(raw) if e["rank"] == r) for r in range(4)]
    assert sent == [2 * 3 * 8 * 4 // 4] * 4  # 2(n-1)/n · S for the graded call on 8 floats


@pytest.mark.parametrize("exercise_id", ["ring-allreduce", "alltoall-transpose"])
def test_the_reference_solutions_are_accepted_on_every_case(exercise_id):
    exercise = EXERCISES[exercise_id]
    result = judge_code(exercise, (exercise.path / "solution.py").read_text(), "solution.py",
                        run_case, "sim")
    assert result["verdict"] == "accepted", result["message"]
    assert len(result["cases"]) == len(exercise.cases)
    for case in result["cases"]:
        n = case["world_size"]
        assert len(case["bytes_sent"]) == n and max(case["bytes_sent"]) <= case["bytes_bound"]
