"""The switch's contract (cjudge/switch/core.py): gloo's rendezvous, collectives it performs,
refusals, exact deadlocks, and a trace that says who did what."""

from __future__ import annotations

import struct
import threading

import pytest

from cjudge.switch.core import Forbidden, Limits, Switch, SwitchError
from cjudge.switch.explain import deadlock_facts, deadlock_message
from cjudge.switch.threads import ThreadSwitch
from cjudge.switch.trace import recorded_values

ALL = frozenset({"send", "recv", "all_reduce", "reduce_scatter", "all_gather", "all_to_all",
                 "broadcast", "reduce", "gather", "scatter", "barrier"})


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def floats(raw: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def graded(world: int, allowed: frozenset[str] = ALL) -> Switch:
    s = Switch(world, allowed)
    for r in range(world):
        s.begin(r)
    return s


def send(s: Switch, src: int, dst: int, payload: bytes, tag: int = 0) -> int:
    return s.post_send(src, 0, dst, tag, payload, "float32", 1, "isend")


def recv(s: Switch, dst: int, src: int | None, capacity: int = 64, tag: int = 0) -> int:
    return s.post_recv(dst, 0, src, tag, capacity, "float32", 2, "irecv")


def test_a_send_completes_only_once_the_receive_is_posted():
    s = graded(2)
    h = send(s, 0, 1, f32(1, 2))
    assert not s.test(0, h)
    r = recv(s, 1, 0)
    assert s.test(0, h) and s.test(1, r)
    assert s.result(1, r) == (0, f32(1, 2))
    [message] = s.trace()["messages"]
    assert (message["src"], message["dst"], message["bytes"]) == (0, 1, 8)


def test_matching_is_fifo_per_tag_and_any_source_takes_the_oldest_sender():
    s = graded(3)
    first, second = send(s, 0, 2, f32(1)), send(s, 0, 2, f32(2))
    other_tag = send(s, 1, 2, f32(9), tag=7)
    r1, r2 = recv(s, 2, 0), recv(s, 2, 0)
    assert s.result(2, r1) == (0, f32(1)) and s.result(2, r2) == (0, f32(2))
    assert s.test(0, first) and s.test(0, second) and not s.test(1, other_tag)
    anyone = recv(s, 2, None, tag=7)
    assert s.result(2, anyone) == (1, f32(9))


def test_a_receive_too_small_for_the_message_is_the_receivers_error():
    s = graded(2)
    send(s, 0, 1, f32(1, 2, 3))
    r = recv(s, 1, 0, capacity=8)
    with pytest.raises(SwitchError, match="12 vs 8 bytes"):
        s.result(1, r)


@pytest.mark.parametrize(("kind", "kwargs", "inputs", "want"), [
    ("all_reduce", {"op": "sum"}, [[1, 2], [10, 20], [100, 200]], [[111, 222]] * 3),
    ("all_reduce", {"op": "max"}, [[1, 50], [10, 20], [5, 2]], [[10, 50]] * 3),
    ("reduce_scatter", {"op": "sum"}, [[1, 2, 3], [10, 20, 30], [100, 200, 300]],
     [[111], [222], [333]]),
    ("all_gather", {}, [[1], [2], [3]], [[1, 2, 3]] * 3),
    ("broadcast", {"root": 1}, [[0, 0], [7, 8], [0, 0]], [[7, 8]] * 3),
    ("reduce", {"op": "sum", "root": 2}, [[1], [2], [3]], [[], [], [6]]),
    ("gather", {"root": 0}, [[1], [2], [3]], [[1, 2, 3], [], []]),
    ("scatter", {"root": 0}, [[4, 5, 6], [], []], [[4], [5], [6]]),
])
def test_the_switch_performs_the_collectives(kind, kwargs, inputs, want):
    s = graded(3)
    handles = [s.post_collective(r, 0, kind, f32(*inputs[r]), "float32", line=3, api=kind,
                                 **kwargs) for r in range(3)]
    assert [floats(s.result(r, h)[1]) for r, h in enumerate(handles)] == want
    [coll] = s.trace()["collectives"]
    assert coll["kind"] == kind and coll["ranks"] == [0, 1, 2]


def test_all_to_all_routes_uneven_blocks():
    s = graded(2)
    a = s.post_collective(0, 0, "all_to_all", f32(1, 2, 3), "float32", line=1, api="a2a",
                          splits=[4, 8])
    b = s.post_collective(1, 0, "all_to_all", f32(4, 5), "float32", line=1, api="a2a",
                          splits=[8, 0])
    assert floats(s.result(0, a)[1]) == [1, 4, 5] and floats(s.result(1, b)[1]) == [2, 3]
    assert [q["sent"] for q in s.trace()["requests"]] == [8, 8]  # to the other rank only
    assert [q["splits"] for q in s.trace()["requests"]] == [[4, 8], [8, 0]]  # for a diagnosis


def test_logical_bytes_follow_the_accounting_table():
    s = graded(4)
    for r in range(4):
        s.post_collective(r, 0, "all_reduce", f32(*range(8)), "float32", line=1, api="ar",
                          op="sum")
    assert [q["sent"] for q in s.trace()["requests"]] == [2 * 3 * 32 // 4] * 4


def test_float32_sums_are_rounded_to_float32():
    s = graded(2)
    hs = [s.post_collective(r, 0, "all_reduce", f32(v), "float32", line=1, api="ar", op="sum")
          for r, v in enumerate([16777216.0, 1.0])]
    assert floats(s.result(0, hs[0])[1]) == [16777216.0]


def test_a_collective_mismatch_is_a_deadlock_that_names_both_calls():
    s = graded(2)
    a = s.post_collective(0, 0, "all_reduce", f32(1), "float32", line=4, api="all_reduce", op="sum")
    b = s.post_collective(1, 0, "broadcast", f32(1), "float32", line=9, api="broadcast", root=0)
    assert not s.wait(0, a) and not s.wait(1, b) and s.deadlocked()
    s.mark_deadlock()
    en, _ = deadlock_message(deadlock_facts(s.trace(), [{"rank": r, "state": "blocked"}
                                                        for r in (0, 1)]))  # type: ignore[misc]
    assert "rank 0 waits in all_reduce (line 4) while rank 1 waits in broadcast (line 9)" in en


def test_a_forbidden_call_is_refused_and_recorded_only_inside_the_graded_call():
    s = Switch(2, frozenset({"send", "recv"}))
    h = s.post_collective(0, 0, "barrier", b"", "float32", line=1, api="barrier")  # module level
    s.begin(0)
    with pytest.raises(Forbidden):
        s.post_collective(0, 0, "all_reduce", f32(1), "float32", line=5, api="dist.all_reduce",
                          op="sum")
    assert h and [(x["rank"], x["kind"], x["line"]) for x in s.trace()["refused"]] == \
        [(0, "all_reduce", 5)]


def test_nothing_is_accepted_after_the_graded_call_ended():
    s = graded(2)
    s.end(0)
    with pytest.raises(SwitchError, match="after its graded function returned"):
        send(s, 0, 1, f32(1))


def test_the_input_is_given_once_at_the_start_of_the_graded_call():
    s = Switch(2, ALL, inputs=[{"shape": [1], "dtype": "float32", "data": [r]} for r in (0, 1)])
    assert s.begin(1)["data"] == [1]
    with pytest.raises(SwitchError):
        s.begin(1)


@pytest.mark.parametrize("bad", [
    lambda s: s.post_send(0, 0, 0, 0, b"", "float32", 1, "x"),  # to itself
    lambda s: s.post_send(0, 0, 5, 0, b"", "float32", 1, "x"),  # no such rank
    lambda s: s.post_send(0, 9, 1, 0, b"", "float32", 1, "x"),  # no such group
    lambda s: s.post_send(0, 0, 1, -1, b"", "float32", 1, "x"),  # bad tag
    lambda s: s.post_send(0, 0, 1, 0, b"", "complex", 1, "x"),  # unknown dtype
    lambda s: s.post_recv(0, 0, 1, 0, -5, "float32", 1, "x"),  # negative capacity
    lambda s: s.post_collective(0, 0, "all_to_all", f32(1), "float32", line=1, api="x",
                                splits=[4]),
    lambda s: s.post_collective(0, 0, "teleport", b"", "float32", line=1, api="x"),
    lambda s: s.wait(0, 12345),  # not its request
    lambda s: s.new_group(0, [0, 7]),
])
def test_impossible_requests_are_the_ranks_error_not_the_judges(bad):
    s = graded(2)
    with pytest.raises(SwitchError):
        bad(s)


def test_a_flood_of_requests_stops_with_a_limit_in_the_trace():
    s = Switch(2, ALL, limits=Limits(requests=10))
    with pytest.raises(SwitchError):
        for _ in range(11):
            send(s, 0, 1, f32(1))
    assert s.flooded and s.trace()["limit"] == "requests"


def test_groups_are_made_by_their_members_and_collectives_meet_per_group():
    s = graded(3)
    assert [s.new_group(r, [0, 2]) for r in (0, 2)] == [1, 1]
    assert s.new_group(0, [0, 2]) == 2 and s.new_group(0, [0, 1]) == 3
    with pytest.raises(SwitchError, match="not in the group"):
        s.new_group(1, [0, 2])
    a = s.post_collective(0, 1, "all_reduce", f32(1), "float32", line=1, api="ar", op="sum")
    b = s.post_collective(2, 1, "all_reduce", f32(2), "float32", line=1, api="ar", op="sum")
    assert floats(s.result(0, a)[1]) == floats(s.result(2, b)[1]) == [3]


def test_a_deadlock_is_exact_and_explained_with_its_cycle():
    s = graded(3)
    for r in range(3):
        h = recv(s, r, (r + 1) % 3)
        assert not s.wait(r, h)
    assert s.deadlocked()
    s.mark_deadlock()
    edges = [(e["rank"], e["on"]) for e in s.trace()["deadlock"]]
    assert edges == [(0, 1), (1, 2), (2, 0)]
    ranks = [{"rank": r, "state": "blocked"} for r in range(3)]
    facts = deadlock_facts(s.trace(), ranks)  # type: ignore[arg-type]
    assert facts["cycle"] == [0, 1, 2, 0]
    assert [(b["rank"], b["kind"], b["line"], b["on"]) for b in facts["blocked"]] == [
        (0, "recv", 2, [1]), (1, "recv", 2, [2]), (2, "recv", 2, [0])]
    en, zh = deadlock_message(facts)
    assert en == ("cycle 0 → 1 → 2 → 0 (each rank waits on the next); ranks 0–2 wait in irecv "
                  "(line 2), each from a peer that is itself blocked in irecv (line 2) "
                  "(0 from 1, 1 from 2, 2 from 0)")
    assert zh.startswith("循环等待 0 → 1 → 2 → 0") and "rank 0–2 在 irecv（第 2 行）中等待" in zh


def test_a_rank_waiting_on_a_collective_names_who_never_came():
    s = graded(3)
    h = s.post_collective(0, 0, "barrier", b"", "float32", line=8, api="barrier")
    s.wait(0, h)
    s.end(1)
    s.finish(2, "failed")
    assert s.deadlocked()
    s.mark_deadlock()
    facts = deadlock_facts(s.trace(), [{"rank": 0, "state": "blocked"},
                                       {"rank": 1, "state": "returned"},
                                       {"rank": 2, "state": "failed"}])  # type: ignore[list-item]
    assert facts["cycle"] == []
    assert [line["en"] for line in facts["lines"]] == [
        "rank 0 waits in barrier (line 8) for rank 2, which failed; and for rank 1, which "
        "returned without making that call"]
    assert "没有进行这次调用就返回了" in facts["lines"][0]["zh"]


def test_ranks_stuck_the_same_way_are_said_once():
    s = graded(8)
    for r in range(5):
        s.wait(r, s.post_collective(r, 0, "all_reduce", f32(1), "float32", line=12,
                                    api="all_reduce", op="sum"))
    for r in range(5, 8):
        s.end(r)
        s.finish(r, "returned")
    s.mark_deadlock()
    facts = deadlock_facts(s.trace(), [{"rank": r, "state": "blocked" if r < 5 else "returned"}
                                       for r in range(8)])  # type: ignore[misc]
    assert [line["en"] for line in facts["lines"]] == [
        "ranks 0–4 wait in all_reduce (line 12) for ranks 5–7, which returned without making "
        "that call"]


def test_a_running_rank_is_never_a_deadlock():
    s = graded(2)
    s.wait(0, recv(s, 0, 1))
    assert not s.deadlocked()


def test_threads_block_in_wait_until_a_peer_posts():
    hub = ThreadSwitch(graded(2))
    got: list = []
    h = hub.call("post_recv", 1, 0, 0, 0, 8, "float32", 1, "recv")
    t = threading.Thread(target=lambda: got.append(hub.wait(1, h)), daemon=True)
    t.start()
    hub.port(0).post_send(0, 1, 0, f32(5), "float32", 1, "send")
    t.join(5)
    assert got == [(0, f32(5))]


def test_graded_payloads_are_recorded_within_the_limit_and_read_back_as_values():
    s = Switch(2, ALL, limits=Limits(recorded_values=1))  # room for 8 bytes
    for r in range(2):
        s.begin(r)
    send(s, 0, 1, f32(1.5, 2.5))
    recv(s, 1, 0)
    send(s, 0, 1, f32(7, 8))  # no room left: not recorded
    recv(s, 1, 0)
    first, second = s.trace()["messages"]
    assert recorded_values(first["data"]) == [1.5, 2.5]
    assert "data" not in second


@pytest.mark.parametrize("forged", [None, [1.0, 2.0], {"b64": "not base64!"},
                                    {"b64": "AAAA", "dtype": "complex128"}, {"dtype": "float32"}])
def test_a_recorded_payload_that_is_not_one_reads_as_nothing(forged: object):
    assert recorded_values(forged) is None
