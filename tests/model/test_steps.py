"""The ``[messages]`` bound counts steps: a segmented, pipelined ring is within it, a flood of
empty messages is not."""

from __future__ import annotations

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.model.steps import steps_per_rank
from cjudge.sim.runtime import run_case

SEGMENTED_RING = '''
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    """The ring, each chunk cut into two segments, both in flight."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))

    def step(send_idx, recv_idx, add):
        out, into = chunks[send_idx].tensor_split(2), chunks[recv_idx].tensor_split(2)
        bufs = [torch.empty_like(p) for p in into]
        reqs = []
        for seg, (o, b) in enumerate(zip(out, bufs)):
            reqs.append((dist.isend(o.clone(), right), dist.irecv(b, left), seg))
            if len(reqs) == 2:  # two in flight: finish the older before posting more
                s, r, k = reqs.pop(0)
                s.wait(); r.wait()
                into[k].add_(bufs[k]) if add else into[k].copy_(bufs[k])
        for s, r, k in reqs:
            s.wait(); r.wait()
            into[k].add_(bufs[k]) if add else into[k].copy_(bufs[k])

    for i in range(n - 1):
        step((rank - i) % n, (rank - i - 1) % n, True)
    for i in range(n - 1):
        step((rank + 1 - i) % n, (rank - i) % n, False)
'''


def _trace(calls: list[tuple[int, str, int, int] | tuple[str, int]]) -> dict:
    """A trace of graded calls in program order: (rank, kind, peer, bytes sent) posts, and
    ("wait", i): a wait for the i-th post."""
    requests: list[dict] = []
    waits: list[dict] = []
    for t, call in enumerate(calls):
        if call[0] == "wait":
            req = requests[int(call[1])]
            waits.append({"rank": req["rank"], "request": req["id"], "begin": t, "end": t})
        else:
            rank, kind, peer, sent = call
            requests.append({"id": t, "rank": rank, "kind": kind, "peer": peer, "sent": sent,
                             "graded": True, "posted": t})
    return {"world_size": 2, "requests": requests, "waits": waits}


def test_segments_in_flight_are_one_step_and_every_empty_message_is_one():
    trace = _trace([
        (0, "send", 1, 8), (0, "send", 1, 8),  # 0, 1: two segments in flight: one step
        ("wait", 0), (0, "send", 1, 8),  # 3: the previous segment still in flight: same step
        ("wait", 1), ("wait", 2), (0, "send", 1, 8),  # 6: after waiting for it: a new step
        (0, "send", 1, 0), (0, "send", 1, 0),  # 7, 8: two empty messages, two steps
        (0, "send", 1, 8), (0, "all_reduce", 0, 8),  # 9, 10: a step, a collective
        (0, "send", 1, 8), (0, "send", 0, 8),  # 11, 12: to another peer: a new step
        (1, "recv", 0, 0), (1, "send", 0, 8)])
    assert steps_per_rank(trace) == [8, 1]  # type: ignore[arg-type]


def test_a_segmented_pipelined_ring_is_within_the_message_bound():
    """More messages than 2(n − 1) (each chunk in segments), but the ring's steps: accepted on
    a case the time bound does not judge."""
    ex = load_exercises(default_root())["ring-allreduce"]
    spec = next(s for s in plan_cases(ex) if s["name"] == "3-ranks-float64")
    assert not ex.model.judges(spec["name"]) and ex.messages is not None
    case = grade_case(CaseFacts.of(ex, spec, run_case(ex.job_spec(SEGMENTED_RING, "segmented.py"), spec)))
    assert min(case["messages_sent"]) > ex.messages(3, {}), case["messages_sent"]
    assert case["verdict"] == "accepted", case["message"]


def test_segments_sent_one_at_a_time_are_steps_each():
    """halves_every_step waits for each half before sending the next: 4(n − 1) steps, over the
    ring's 2(n − 1) on a case the time bound does not judge."""
    ex = load_exercises(default_root())["ring-allreduce"]
    spec = next(s for s in plan_cases(ex) if s["name"] == "3-ranks-float64")
    code = (ex.path / "wrong" / "halves_every_step.py").read_text(encoding="utf-8")
    case = grade_case(CaseFacts.of(ex, spec, run_case(ex.job_spec(code, "halves.py"), spec)))
    assert case["verdict"] == "over_budget"
    assert "the ring needs 4 steps and this rank took 8" in case["message"]
    assert "用了 8 步" in case["message_zh"]
