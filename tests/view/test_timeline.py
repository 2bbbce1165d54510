"""The verdict JSON's ``timeline``: steps, modelled times, deadlock edges, the wrong chunk, the
critical path, and its bound."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from cjudge.grading.facts import CaseFacts
from cjudge.model.case import ModelSpec
from cjudge.model.reference import ring_all_reduce
from cjudge.view import timeline as tl

from .helpers import exercise, graded


def isend_lines(exercise_id: str) -> set[int]:
    """The lines of an exercise's reference that call ``dist.isend``."""
    source = (exercise(exercise_id).path / "solution.py").read_text(encoding="utf-8")
    return {n for n, text in enumerate(source.splitlines(), 1) if "dist.isend(" in text}


def test_reference_ring_on_8_ranks_is_14_steps_of_8_messages():
    case = graded("ring-allreduce", "solution.py", 8)
    view = case["timeline"]
    assert case["verdict"] == "accepted" and "error" not in view
    assert view["world_size"] == 8 and view["steps"] == 14
    assert len(view["messages"]) == 8 * 14
    assert Counter(m["step"] for m in view["messages"]) == {s: 8 for s in range(1, 15)}
    assert all(m["dst"] == (m["src"] + 1) % 8 for m in view["messages"])
    assert {m["line"] for m in view["messages"]} == isend_lines("ring-allreduce")
    # modelled at the middle size (1 MB): the ring's closed form, 73.89 µs
    assert view["size"] == 10**6
    assert view["end_t"] == pytest.approx(73.89e3, rel=1e-3)
    assert all(m["t1"] > m["t0"] for m in view["messages"])
    # the critical path: one transfer per step, each starting when the one before ended
    path = {c["id"] for c in view["critical"]}
    chain = [m for m in view["messages"] if m["id"] in path]
    assert [m["step"] for m in chain] == list(range(1, 15))
    assert all(a["t1"] == pytest.approx(b["t0"]) for a, b in zip(chain, chain[1:], strict=False))
    assert view["cut"] is False and view["deadlock"] == [] and view["wrong"] is None
    json.dumps(view)


def test_deadlock_draws_every_wait_for_edge():
    case = graded("ring-allreduce", "wrong/recv_before_send.py")
    view = case["timeline"]
    assert case["verdict"] == "deadlock"
    edges = {(e["rank"], e["on"]) for e in view["deadlock"]}
    assert edges == {(r, (r - 1) % 4) for r in range(4)}
    assert all(e["kind"] == "recv" and e["line"] for e in view["deadlock"])
    assert view["messages"] == [] and len(view["pending"]) == 4
    assert all(lane["state"] == "blocked" for lane in view["lanes"])


def test_wrong_answer_marks_the_first_wrong_elements_chunk():
    case = graded("ring-allreduce", "wrong/allgather_one_step_short.py")
    view = case["timeline"]
    assert case["verdict"] == "wrong_answer"
    wrong = view["wrong"]
    assert f"rank {wrong['rank']}: first wrong element at index {wrong['index']}" in case["message"]
    assert wrong["chunk"] == wrong["index"] // 2  # 8 elements in 4 chunks of 2
    last = next(m for m in view["messages"] if m["id"] == wrong["last_recv"])
    assert last["dst"] == wrong["rank"]


def test_too_slow_ring_is_drawn_at_its_worst_size_with_its_critical_path():
    case = graded("ring-allreduce", "wrong/halves_every_step.py", 8)
    view = case["timeline"]
    assert case["verdict"] == "too_slow" and view["too_slow"]
    assert view["size"] == 4096  # latency-bound: 4 KiB is where it is furthest over the bound
    assert view["steps"] == 28 and len(view["critical"]) == 28


def test_built_in_collectives_are_bands():
    case = graded("alltoall-transpose", "solution.py", 4)
    view = case["timeline"]
    assert case["verdict"] == "accepted"
    assert view["messages"] == []
    assert [c["kind"] for c in view["collectives"]] == ["all_to_all"]
    band = view["collectives"][0]
    assert band["ranks"] == [0, 1, 2, 3] and band["step"] == 1 and band["t1"] > band["t0"] >= 0
    assert band["line"]


def test_a_large_run_is_cut_and_says_so(monkeypatch):
    monkeypatch.setattr(tl, "MAX_MESSAGES", 20)
    trace = ring_all_reduce(8, 8 * 1024)
    view = tl.build_timeline(trace, ModelSpec(), 8 * 1024)
    assert len(view["messages"]) == 20 and view["cut"]["messages"] == 8 * 14
    assert [m["step"] for m in view["messages"]] == sorted(m["step"] for m in view["messages"])


def test_a_bug_in_the_view_never_changes_a_verdict():
    class Broken:
        model = None  # not a ModelSpec: building the view fails

    facts = CaseFacts(Broken(), {"inputs": [{"shape": [1], "dtype": "float32"}]},
                      {"trace": {}, "ranks": []}, sent=[], messages=[], bounds=[], per_rank=False)
    out = tl.case_timeline(facts, {"verdict": "accepted"})
    assert set(out) == {"version", "error"}
