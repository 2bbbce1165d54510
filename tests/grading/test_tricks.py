"""Gaming tricks applied to every point-to-point exercise's reference never rank it better
(issue "Measures nobody can game"): each tricked run is refused, or accepted with no fewer bytes
and no less modelled time than the reference alone.

* Early receives: module-level code may communicate, so receives posted at import from every
  peer, never waited, used to meet the graded sends (the reference's own receives then waited
  forever, or, with the early ones used, the messages fell out of the model: 0 s on the
  leaderboards; tests/server/sandbox/attacks/pre_begin_receives.py is that run). One graded epoch stops it.
* Message floods: each send and receive split into one message per element (the same bytes,
  many more messages: the cheapest way to move case data in message counts, tags or empty
  messages costs at least as many). The message bound (``over_budget``, counted in steps), the
  time bound (``too_slow``) and the per-port gap (LogGP's g) stop it or make it slower.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
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
#: module-level code before the reference's: dist's point-to-point calls, one message per element
SPLIT = (Path(__file__).parents[1] / "data" / "tricks" / "split_messages.py").read_text()
#: what a split run may end in: refused by a bound, or stopped on its largest cases by the cap
#: on requests per case (reported as output_limit)
REFUSED = {"over_budget", "too_slow", "output_limit"}
#: the modelled time is the program's, whatever the ranks' interleaving: only float rounding
NOISE = 1e-9


def _judged(exercise_id: str, prelude: str = "") -> tuple[dict, dict]:
    """(the reference's verdict, the reference's with ``prelude`` before it), on the simulated
    runtime with a generous time limit (a loaded machine must not turn a case into time_limit)."""
    ex = dataclasses.replace(EXERCISES[exercise_id], time_limit_s=120.0)
    solution = (ex.path / "solution.py").read_text()
    return (judge_code(ex, solution, "solution.py", run_case, "sim", all_cases=True),
            judge_code(ex, prelude + solution, "solution.py", run_case, "sim", all_cases=True))


def _times(case: dict, ref: dict) -> list[tuple[float, float]]:
    """(the case's, the reference's) modelled time at each size."""
    def sizes(c: dict) -> list[float]:
        return [row["time_s"] for row in c.get("model", {}).get("sizes", [])]
    return list(zip(sizes(case), sizes(ref), strict=True))


def _no_better(case: dict, ref: dict) -> None:
    """An accepted tricked case sends the reference's bytes, in no less modelled time."""
    assert case["bytes_sent"] == ref["bytes_sent"], case["name"]
    assert all(t >= r * (1 - NOISE) for t, r in _times(case, ref)), case["name"]


@pytest.mark.parametrize("exercise_id", P2P)
def test_early_receives_neither_steal_nor_speed_up_the_reference(exercise_id: str) -> None:
    plain, tricked = _judged(exercise_id, EARLY)
    assert plain["verdict"] == "accepted"
    assert tricked["verdict"] == "accepted", [c["message"] for c in tricked["cases"]]
    reference = {c["name"]: c for c in plain["cases"]}
    for case in tricked["cases"]:
        _no_better(case, reference[case["name"]])


@pytest.mark.parametrize("exercise_id", P2P)
def test_one_message_per_element_is_never_ranked_better(exercise_id: str) -> None:
    plain, split = _judged(exercise_id, SPLIT)
    reference = {c["name"]: c for c in plain["cases"]}
    # where what crosses a stage boundary must be a judge's function's output, whole (the
    # pipelines), an element of it is not one: wrong_answer
    whole = {"wrong_answer"} if EXERCISES[exercise_id].grader.computes_take_trace else set()
    for case in split["cases"]:
        assert case["verdict"] in REFUSED | whole | {"accepted"}, case["message"]
        if case["verdict"] == "accepted":
            _no_better(case, reference[case["name"]])
    # noticed: refused on some case, or (the messages bound counts steps, so a flood within
    # a step may pass it) slower in the model on some case, by the per-message α and gap
    slower = any(_slower(case, reference[case["name"]]) for case in split["cases"]
                 if case["verdict"] == "accepted")
    assert {c["verdict"] for c in split["cases"]} & (REFUSED | whole) or slower, \
        "a flood went unnoticed"


def _slower(case: dict, ref: dict) -> bool:
    """Some modelled size of ``case`` takes longer than the reference's."""
    return any(t > r * (1 + NOISE) for t, r in _times(case, ref))


def test_every_point_to_point_exercise_is_covered() -> None:
    assert {"ring-allreduce", "tree-broadcast", "allreduce-small", "pipeline-gpipe"} <= set(P2P)
