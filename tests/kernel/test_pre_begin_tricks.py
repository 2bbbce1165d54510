"""Receives posted before the graded call (module-level code may communicate) neither steal a
graded send nor make a run cheaper: every point-to-point exercise's reference, with early
receives from every peer posted at import and never waited, is accepted with no fewer bytes and
no less modelled time than the reference alone. Before one graded epoch, those receives met the
graded sends: the reference's own receives then waited forever, or, with the receives used,
the messages fell out of the model (0 s on the leaderboards; tests/server/attacks/
pre_begin_receives.py is that run)."""

from __future__ import annotations

import pytest

from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
P2P = sorted(i for i, ex in EXERCISES.items() if "irecv" in ex.allowed and not ex.draft)
#: module-level code before the reference's: early receives from every peer on tags 0 and 1
EARLY = """import torch as _torch
import torch.distributed as _dist

_EARLY = [_dist.irecv(_torch.empty(1 << 12, dtype=_torch.float64), _src, tag=_tag)
          for _src in range(_dist.get_world_size()) if _src != _dist.get_rank()
          for _tag in (0, 1) for _ in range(4)]
"""


def _times(case: dict) -> list[float]:
    return [row["time_s"] for row in case.get("model", {}).get("sizes", [])]


@pytest.mark.parametrize("exercise_id", P2P)
def test_early_receives_neither_steal_nor_speed_up_the_reference(exercise_id: str) -> None:
    ex = EXERCISES[exercise_id]
    solution = (ex.path / "solution.py").read_text()
    plain = judge_code(ex, solution, "solution.py", run_case, "sim", all_cases=True)
    tricked = judge_code(ex, EARLY + solution, "solution.py", run_case, "sim", all_cases=True)
    assert plain["verdict"] == "accepted"
    assert tricked["verdict"] == "accepted", [c["message"] for c in tricked["cases"]]
    reference = {c["name"]: c for c in plain["cases"]}
    for case in tricked["cases"]:
        ref = reference[case["name"]]
        assert case["bytes_sent"] == ref["bytes_sent"], case["name"]
        assert all(t >= r * (1 - 1e-9) for t, r in zip(_times(case), _times(ref), strict=True)), \
            case["name"]


def test_every_point_to_point_exercise_is_covered() -> None:
    assert {"ring-allreduce", "tree-broadcast", "allreduce-small", "pipeline-gpipe"} <= set(P2P)
