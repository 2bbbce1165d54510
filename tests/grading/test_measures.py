"""What grading does with the model's and the switch's measures: an incomplete replay is the
judge's defect, message bounds and floors (reference runs on simulated ranks)."""

from __future__ import annotations

import copy

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.sim.runtime import run_case

from .helpers import exercise


def _reference_run(exercise_id: str, case: int = 0) -> tuple[dict, dict]:
    """(case spec, raw report) of the exercise's reference on one case."""
    ex = exercise(exercise_id)
    spec = plan_cases(ex)[case]
    return spec, run_case(ex.job_spec(ex.solution, "solution.py"), spec)


def test_an_incomplete_replay_of_a_correct_case_is_a_judge_error():
    """The reference's receives marked ungraded (as if posted before the graded call): the
    answer is right, but the model cannot place the messages, so the case is the judge's
    defect, never accepted with its time bound skipped."""
    ex = exercise("ring-allreduce")
    spec, raw = _reference_run("ring-allreduce")
    assert grade_case(CaseFacts.of(ex, spec, raw))["verdict"] == "accepted"
    lost = copy.deepcopy(raw)
    for req in lost["trace"]["requests"]:
        if req["kind"] == "recv":
            req["graded"] = False
    case = grade_case(CaseFacts.of(ex, spec, lost))
    assert case["verdict"] == "judge_error"
    assert "defect of the judge" in case["message"] and "评测机的缺陷" in case["message_zh"]
    assert not all(row["complete"] for row in case["model"]["sizes"])


FLOOD = '''

_ring = ring_all_reduce


def ring_all_reduce(t):
    _ring(t)
    rank, n = dist.get_rank(), dist.get_world_size()
    reqs = []
    for tag in range(1, 11):  # ten empty messages to the right, ten from the left, at once
        reqs += [dist.isend(torch.empty(0, dtype=t.dtype), (rank + 1) % n, tag=tag),
                 dist.irecv(torch.empty(0, dtype=t.dtype), (rank - 1) % n, tag=tag)]
    for req in reqs:
        req.wait()
'''


def test_empty_messages_count_toward_the_message_bound():
    """The reference followed by ten empty messages per rank, on a case the time bound does not
    judge: still correct and within its bytes, but 11 messages where the ring needs 2 is over
    budget, in both languages."""
    ex = exercise("ring-allreduce")
    spec = plan_cases(ex)[1]
    assert spec["world_size"] == 2 and not ex.model.judges(spec["name"])
    raw = run_case(ex.job_spec(ex.solution + FLOOD, "flood.py"), spec)
    case = grade_case(CaseFacts.of(ex, spec, raw))
    assert case["messages_sent"] == [12, 12]
    assert case["verdict"] == "over_budget", case["message"]
    assert "rank 0 sent 12 messages; the ring needs 2" in case["message"]
    assert "发送了 12 条消息；环形算法只需要 2 条" in case["message_zh"]
    assert ex.messages is not None and ex.messages(8, {}) == 14
