"""Code that assumes the root is rank 0 is told the case's root (simulated runtime): rank 0
alone played the root's part, the case's root did not."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.grading.root_zero import root_zero
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case

from .helpers import exercise

BROADCAST_FROM_0 = """
import torch.distributed as dist

def broadcast(t, src):
    rank, n = dist.get_rank(), dist.get_world_size()
    mask = 1
    while mask < n:
        if rank < mask and rank + mask < n:
            dist.send(t, rank + mask)
        elif mask <= rank < 2 * mask:
            dist.recv(t, rank - mask)
        mask *= 2
"""

REDUCE_TO_0 = """
import torch.distributed as dist

def reduce(t, dst):
    rank, n = dist.get_rank(), dist.get_world_size()
    mask = 1
    while mask < n:
        if rank & mask:
            dist.send(t.clone(), rank - mask)
            return
        if rank + mask < n:
            buf = t.clone()
            dist.recv(buf, rank + mask)
            t += buf
        mask *= 2
"""


@pytest.mark.parametrize(("exercise_id", "code", "en", "zh"), [
    ("tree-broadcast", BROADCAST_FROM_0, "Rank 0 only sends, as the root does, but this case's "
     "root is src = 5: your code assumes the root is rank 0", "本用例的根是 src = 5"),
    ("tree-reduce", REDUCE_TO_0, "Rank 0 only receives, as the root does, but this case's root "
     "is dst = 6: your code assumes the root is rank 0", "本用例的根是 dst = 6"),
])
def test_a_root_0_assumption_names_the_cases_root(exercise_id, code, en, zh):
    result = judge_code(exercise(exercise_id), textwrap.dedent(code), "learner.py", run_case,
                        "sim", explore=run_case)
    case = next(c for c in result["cases"] if c["verdict"] != "accepted")
    assert case["verdict"] == "wrong_answer"
    assert en in case["message"] and "v = (rank - " in case["message"], case["message"]
    assert zh in case["message_zh"] and "你的代码假定根是 rank 0" in case["message_zh"]


def _trace(calls: list[tuple[int, str]]) -> dict:
    return {"requests": [{"rank": r, "kind": k, "graded": True} for r, k in calls]}


def test_the_root_playing_its_part_or_a_root_of_0_is_no_assumption():
    right = _trace([(5, "send"), (1, "recv"), (0, "recv")])  # src 5 sends, as it should
    assert root_zero("broadcast", {"src": 5}, right) is None  # type: ignore[arg-type]
    both = _trace([(0, "send"), (5, "send")])
    assert root_zero("broadcast", {"src": 5}, both) is None  # type: ignore[arg-type]
    wrong = _trace([(0, "send"), (5, "recv")])
    assert root_zero("broadcast", {"src": 0}, wrong) is None  # type: ignore[arg-type]
    assert root_zero("broadcast", {"src": 5}, wrong) is not None  # type: ignore[arg-type]
