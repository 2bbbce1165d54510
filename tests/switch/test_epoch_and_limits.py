"""The switch's graded epoch and its bounds on the judge's resources (issue 22): nothing posted
before a rank's ``begin`` meets anything after it, a case that ends holds every rank to its graded
requests, and refusals, groups, results and reductions are all counted against the limits."""

from __future__ import annotations

import math
import random
import struct
import time

import pytest

from cjudge.contract.protocol import RankReport
from cjudge.switch import reduce
from cjudge.switch.core import Flooded, Forbidden, Limits, Switch, SwitchError

ALL = frozenset({"send", "recv", "all_reduce", "all_gather", "gather", "barrier"})


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def send(s: Switch, src: int, dst: int, payload: bytes, line: int = 1) -> int:
    return s.post_send(src, 0, dst, 0, payload, "float32", line, "isend")


def recv(s: Switch, dst: int, src: int | None, line: int = 2) -> int:
    return s.post_recv(dst, 0, src, 0, 64, "float32", line, "irecv")


def all_reduce(s: Switch, rank: int, payload: bytes) -> int:
    return s.post_collective(rank, 0, "all_reduce", payload, "float32", line=3, api="all_reduce",
                             op="sum")


def returned(rank: int) -> RankReport:
    return RankReport(rank=rank, state="returned", output=None, error=None)


# ---- one graded epoch ---------------------------------------------------------------------------

def test_a_receive_posted_before_begin_never_meets_a_graded_send_and_is_cancelled_at_begin():
    s = Switch(2, ALL)
    early = recv(s, 1, 0)  # module level, before rank 1's graded call
    s.begin(0)
    graded_send = send(s, 0, 1, f32(7))
    assert not s.test(0, graded_send) and not s.test(1, early)
    s.begin(1)
    assert s.test(1, early)  # cancelled: its wait raises
    with pytest.raises(SwitchError, match="before the graded call started") as err:
        s.result(1, early)
    assert "评测机已将其取消" in err.value.zh and "recv/irecv at line 2" in err.value.en
    assert not s.test(0, graded_send)
    late = recv(s, 1, 0)
    assert s.result(1, late) == (0, f32(7))
    [message] = s.trace()["messages"]
    assert message["recv"] == late


def test_a_send_posted_before_begin_is_cancelled_and_never_delivered():
    s = Switch(2, ALL)
    early = send(s, 0, 1, f32(1))
    s.begin(0)
    with pytest.raises(SwitchError, match="cancelled"):
        s.result(0, early)
    s.begin(1)
    r = recv(s, 1, 0)
    assert not s.test(1, r) and s.trace()["messages"] == []


def test_collectives_meet_only_within_their_epoch():
    s = Switch(2, ALL)
    early = all_reduce(s, 0, f32(1))
    s.begin(1)
    graded = all_reduce(s, 1, f32(10))
    assert not s.test(1, graded)  # not met by rank 0's call from before its begin
    s.begin(0)
    assert s.test(0, early)
    with pytest.raises(SwitchError, match="before the graded call"):
        s.result(0, early)
    mine = all_reduce(s, 0, f32(2))
    assert s.result(0, mine)[1] == s.result(1, graded)[1] == f32(12)


def test_module_level_communication_that_completes_keeps_working():
    s = Switch(2, ALL)
    a, b = all_reduce(s, 0, f32(1)), all_reduce(s, 1, f32(2))
    h, r = send(s, 0, 1, f32(5)), recv(s, 1, 0)
    for rank in (0, 1):
        s.begin(rank)
    assert s.result(0, a)[1] == s.result(1, b)[1] == f32(3)
    assert s.result(1, r) == (0, f32(5)) and s.result(0, h) == (None, b"")
    assert not any(q["graded"] for q in s.trace()["requests"])


def test_end_comes_only_after_begin_and_once():
    s = Switch(1, ALL)
    with pytest.raises(SwitchError, match="only once, after it began"):
        s.end(0)
    s.begin(0)
    s.end(0)
    with pytest.raises(SwitchError, match="only once"):
        s.end(0)


def test_a_rank_that_returns_with_a_graded_send_never_received_fails_naming_call_and_line():
    s = Switch(2, ALL)
    for rank in (0, 1):
        s.begin(rank)
    send(s, 0, 1, f32(1), line=12)
    for rank in (0, 1):
        s.end(rank)
    reports = s.reports([returned(0), returned(1)], None)
    assert reports[1]["state"] == "returned"
    failed = reports[0]
    assert failed["state"] == "failed" and failed["output"] is None
    error = failed["error"]
    assert error["line"] == 12 and error["type"] == "RuntimeError"
    assert "send/isend at line 12 (to rank 1, tag 0) was never received" in error["message"]
    assert "从未被接收" in error["message_zh"] and "从未被接收" not in error["message"]


def test_a_receive_never_matched_fails_and_a_stopped_case_is_left_as_it_stopped():
    s = Switch(2, ALL)
    for rank in (0, 1):
        s.begin(rank)
    recv(s, 1, None, line=4)
    for rank in (0, 1):
        s.end(rank)
    [_, report] = s.reports([returned(0), returned(1)], None)
    assert "recv/irecv at line 4 (from any rank, tag 0) never received" in \
        report["error"]["message"]
    assert [r["state"] for r in s.reports([returned(0), returned(1)], "deadlock")] == \
        ["returned", "returned"]


def test_requests_that_completed_unwaited_are_not_failures():
    s = Switch(2, ALL)
    for rank in range(2):
        s.begin(rank)
    send(s, 0, 1, f32(1))
    recv(s, 1, 0)  # completes both, neither waited
    reports = s.reports([returned(0), returned(1)], None)
    assert [r["state"] for r in reports] == ["returned", "returned"]


def test_where_a_rank_failed_its_error_explains_its_peers_unfinished_requests():
    s = Switch(3, ALL)
    for rank in range(3):
        s.begin(rank)
    send(s, 0, 2, f32(1))  # rank 2 raised before receiving it
    error = {"kind": "exception", "type": "ValueError", "message": "x", "traceback": "",
             "line": 5}
    failed = RankReport(rank=2, state="failed", output=None, error=error)
    reports = s.reports([returned(0), None, failed], None)
    assert [r["state"] for r in reports] == ["returned", "running", "failed"]
    assert reports[2]["error"] is error


# ---- counting toward the cap ------------------------------------------------------------------

def test_refusals_count_toward_the_cap_and_only_the_first_are_recorded():
    s = Switch(1, frozenset({"send"}), limits=Limits(requests=10, refusals=3))
    s.begin(0)
    for _ in range(10):
        with pytest.raises(Forbidden):
            all_reduce(s, 0, f32(1))
    with pytest.raises(Flooded):
        all_reduce(s, 0, f32(1))
    trace = s.trace()
    assert len(trace["refused"]) == 3 and trace["refused_more"] == 7
    assert s.flooded and trace["limit"] == "requests"


def test_malformed_posts_and_new_groups_count_toward_the_cap():
    s = Switch(2, ALL, limits=Limits(requests=6))
    for _ in range(3):
        s.new_group(0, [0, 1])
    for _ in range(3):
        with pytest.raises(SwitchError, match="invalid tag"):
            s.post_send(0, 0, 1, -1, b"", "float32", None, "isend")
    with pytest.raises(Flooded):
        s.new_group(0, [0, 1])


def test_a_refusal_names_the_switchs_kind_of_call_not_what_the_rank_called_it():
    s = Switch(1, frozenset({"send"}))
    s.begin(0)
    with pytest.raises(Forbidden) as err:
        s.post_collective(0, 0, "all_reduce", f32(1), "float32", line=1,
                          api="nothing (the judge is broken)", op="sum")
    assert "all_reduce is not allowed" in err.value.en and "broken" not in err.value.en
    with pytest.raises(SwitchError, match="unknown collective"):
        s.post_collective(0, 0, "anything I like", f32(1), "float32", line=1, api="x")


# ---- bytes held --------------------------------------------------------------------------------

def test_a_collectives_result_is_charged_when_it_is_posted():
    s = Switch(4, ALL, limits=Limits(held_bytes=100))
    gather = dict(line=1, api="all_gather")
    s.post_collective(0, 0, "all_gather", bytes(20), "float32", **gather)  # 80 bytes to come
    assert s.held == 80
    with pytest.raises(SwitchError, match="too much data in flight"):
        s.post_collective(1, 0, "all_gather", bytes(20), "float32", **gather)


def test_bytes_a_runtime_holds_for_a_rank_count_until_it_reads_them():
    s = Switch(2, ALL, limits=Limits(held_bytes=100))
    s.hold(95)
    with pytest.raises(SwitchError, match="too much data in flight"):
        send(s, 0, 1, bytes(8))
    s.hold(-95)
    send(s, 0, 1, bytes(8))
    assert s.held == 8


def test_held_bytes_return_to_zero_once_every_result_is_read():
    s = Switch(3, ALL)
    handles = [s.post_collective(r, 0, "all_gather", f32(r), "float32", line=1, api="x")
               for r in range(3)]
    h, r = send(s, 0, 1, f32(1, 2)), recv(s, 1, 0)
    for rank, handle in enumerate(handles):
        s.result(rank, handle)
    s.result(0, h)
    s.result(1, r)
    assert s.held == 0


# ---- reductions and the deadline ---------------------------------------------------------------

def test_a_pure_python_reduction_stops_at_the_deadline_and_the_case_is_late_not_deadlocked(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(reduce, "np", None)
    s = Switch(2, ALL, deadline=time.monotonic() - 1)
    for rank in (0, 1):
        s.begin(rank)
    payload = bytes(4 * (reduce.SLICE + 1))
    handles = [all_reduce(s, rank, payload) for rank in (0, 1)]
    assert s.late and not any(s.test(r, h) for r, h in enumerate(handles))
    for rank, handle in enumerate(handles):
        s.wait(rank, handle)
    assert s.deadlocked() and s.stuck() is None  # the runtime's clock says time_limit


def _payload(dtype: str, rng: random.Random, n: int) -> bytes:
    code = reduce.DTYPES[dtype][0]
    if dtype.startswith("float"):
        pool = [0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, math.nan, 3.4e38, 1e-45]
        values = [rng.choice(pool) if rng.random() < 0.3 else rng.uniform(-1e6, 1e6)
                  for _ in range(n)]
    elif dtype == "bool":
        values = [rng.randint(0, 1) for _ in range(n)]
    else:
        bits = 8 * reduce.DTYPES[dtype][1]
        values = [rng.choice([-(1 << (bits - 1)), (1 << (bits - 1)) - 1, rng.randint(-9, 9)])
                  for _ in range(n)]
    return struct.pack(f"<{n}{code}", *values)


@pytest.mark.parametrize("dtype", sorted(reduce.DTYPES))
def test_numpy_reductions_give_the_same_bytes_as_pure_python(dtype: str,
                                                           monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("numpy")
    rng = random.Random(dtype)
    kind = reduce.DTYPES[dtype][2]
    ops = [op for op in reduce.OPS
           if not (op in ("band", "bor", "bxor") and kind == 2) and not (op == "avg" and kind != 2)]
    for op in ops:
        parts = [_payload(dtype, rng, 257) for _ in range(4)]
        fast = reduce.reduce_bytes(op, parts, dtype)
        with monkeypatch.context() as m:
            m.setattr(reduce, "np", None)
            slow = reduce.reduce_bytes(op, parts, dtype)
        assert fast == slow, (dtype, op)
