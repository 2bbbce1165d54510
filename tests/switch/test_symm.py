"""Symmetric memory in the switch (cjudge/switch/symm.py): loads and stores of every rank's
buffer, recorded as transfers, ordered only by barriers, and races found whatever the order in
which the switch sees the accesses."""

from __future__ import annotations

import struct

import pytest

from cjudge.switch import symm
from cjudge.switch.accounting import bytes_per_rank
from cjudge.switch.core import Switch, SwitchError

NUMEL = 4


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def floats(raw: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def switch(world: int, numel: int = NUMEL) -> Switch:
    """A switch whose ranks all began, each handed symmetric memory (handle 0); nothing allowed."""
    value = {"call": [{"shape": [1], "dtype": "float32", "data": [0.0]},
                      {"fn": "symm", "params": {"numel": numel, "dtype": "float32"}}]}
    s = Switch(world, frozenset(), inputs=[value] * world)
    for r in range(world):
        s.begin(r)
    return s


def store(s: Switch, rank: int, owner: int, values: list[float], offset: int = 0,
          line: int = 10) -> None:
    assert s.compute(rank, 0, f32(*values), "float32", [len(values)],
                     [symm.STORE, owner, offset, len(values)], line) == b""


def load(s: Switch, rank: int, owner: int, count: int = NUMEL, offset: int = 0,
         line: int = 20) -> list[float]:
    return floats(s.compute(rank, 0, b"", "float32", [0], [symm.LOAD, owner, offset, count],
                            line))


def barrier(s: Switch) -> None:
    """Every rank posts symm.barrier and waits for it."""
    handles = [s.post_collective(r, 0, symm.BARRIER, b"", "float32", line=30,
                                 api="symm.barrier") for r in range(s.world)]
    for r, h in enumerate(handles):
        assert s.wait(r, h)
        s.result(r, h)


def test_a_store_before_a_barrier_is_seen_after_it_and_counted_as_the_issuers_bytes():
    s = switch(2)
    store(s, 0, 0, [1, 2])  # local: free
    store(s, 1, 0, [5, 6], offset=2)  # into rank 0's buffer: rank 1's 8 bytes
    barrier(s)
    assert load(s, 1, 0) == [1, 2, 5, 6]
    trace = s.trace()
    assert "race" not in trace
    sent, calls = bytes_per_rank(trace)
    assert sent == [0, 8 + 16] and calls == [0, 2]  # one store, one load
    kinds = [(r["kind"], r["rank"], r["peer"]) for r in trace["requests"]]
    assert kinds == [("symm_write", 0, 0), ("symm_write", 1, 0), ("symm_barrier", 0, None),
                     ("symm_barrier", 1, None), ("symm_read", 1, 0)]
    load_message = trace["messages"][-1]  # a load moves data from the owner to the reader
    assert (load_message["src"], load_message["dst"], load_message["bytes"]) == (0, 1, 16)


@pytest.mark.parametrize("store_first", [True, False])
def test_a_load_with_no_barrier_races_the_store_whatever_the_order(store_first):
    s = switch(2)
    if store_first:
        store(s, 1, 1, [7, 7, 7, 7], line=8)
        got = load(s, 0, 1, line=12)
    else:
        got = load(s, 0, 1, line=12)
        store(s, 1, 1, [7, 7, 7, 7], line=8)
    assert got == [0, 0, 0, 0]  # a racing store is never seen
    race = s.trace()["race"]
    assert race == {"owner": 1, "element": 0, "writer": 1, "write_line": 8, "reader": 0,
                    "read_line": 12}
    en, zh = symm.explain(race)
    assert en.startswith("rank 0 read element 0 of rank 1's symmetric buffer at line 12 before "
                         "rank 1 wrote it at line 8") and "symm.barrier()" in en
    assert "rank 0" in zh and "第 12 行" in zh


def test_two_stores_of_one_element_with_no_barrier_race():
    s = switch(3)
    store(s, 2, 0, [1], line=5)
    store(s, 1, 0, [2], line=6)
    race = s.trace()["race"]
    assert (race["first"], race["writer"], race["owner"]) == (1, 2, 0)
    assert "ranks 1 and 2 both wrote element 0 of rank 0's" in symm.explain(race)[0]


def test_a_rank_sees_its_own_stores_and_disjoint_accesses_do_not_race():
    s = switch(2)
    store(s, 0, 1, [3, 4], offset=0)
    store(s, 1, 1, [5, 6], offset=2)
    assert load(s, 0, 1, 2) == [3, 4]
    assert "race" not in s.trace()


def test_only_a_waited_barrier_orders_a_rank_after_its_peers():
    s = switch(2)
    store(s, 1, 1, [9, 9, 9, 9])
    mine = s.post_collective(0, 0, symm.BARRIER, b"", "float32", line=30, api="symm.barrier")
    assert load(s, 0, 1) == [0, 0, 0, 0]  # posted, not yet waited: the store may not be done
    assert s.trace()["race"]["reader"] == 0
    theirs = s.post_collective(1, 0, symm.BARRIER, b"", "float32", line=30, api="symm.barrier")
    for r, h in ((0, mine), (1, theirs)):
        assert s.wait(r, h)
    assert load(s, 0, 1) == [9, 9, 9, 9]


@pytest.mark.parametrize(("args", "dtype", "says"), [
    ([symm.LOAD, 2, 0, 1], "float32", "there is no rank 2"),
    ([symm.LOAD, 1, 3, 2], "float32", "outside the buffer of 4 elements"),
    ([symm.LOAD, 1, 0, 1], "float64", "the buffers hold float32"),
    ([7, 1, 0, 1], "float32", "malformed"),
])
def test_an_access_the_buffers_cannot_take_is_refused(args, dtype, says):
    s = switch(2)
    with pytest.raises(SwitchError, match=says):
        s.compute(0, 0, b"", dtype, [0], args, 1)


def test_symm_barrier_is_never_refused_but_the_process_groups_is():
    s = switch(2)
    barrier(s)  # nothing is allowed, yet symmetric memory's barrier goes through
    with pytest.raises(SwitchError):
        s.post_collective(0, 0, "barrier", b"", "float32", line=1, api="barrier")
