"""Symmetric memory in the α-β replay: loads and stores are NVLink transfers that go out back to
back, a store waits for the loads before it, a barrier for everything (docs/model.md)."""

from __future__ import annotations

import struct

import pytest

from cjudge.model.replay import replay
from cjudge.model.topology import get_topology
from cjudge.switch import symm
from cjudge.switch.core import Switch

H100 = get_topology("h100x8")
ALPHA, BETA = 5e-6, 450e9
N, NUMEL = 8, 64  # a run of 256 bytes per rank, scaled
KiB, MiB = 1 << 10, 1 << 20


def _switch() -> Switch:
    value = {"call": [{"shape": [1], "dtype": "float32", "data": [0.0]},
                      {"fn": "symm", "params": {"numel": N * NUMEL, "dtype": "float32"}}]}
    s = Switch(N, frozenset(), inputs=[value] * N)
    for r in range(N):
        s.begin(r)
    return s


def _store(s: Switch, rank: int, owner: int, offset: int, count: int) -> None:
    s.compute(rank, 0, struct.pack(f"<{count}f", *[1.0] * count), "float32", [count],
              [symm.STORE, owner, offset, count], 1)


def _load(s: Switch, rank: int, owner: int, offset: int, count: int) -> None:
    s.compute(rank, 0, b"", "float32", [0], [symm.LOAD, owner, offset, count], 2)


def _barrier(s: Switch) -> None:
    handles = [s.post_collective(r, 0, symm.BARRIER, b"", "float32", line=3, api="symm.barrier")
               for r in range(N)]
    for r, h in enumerate(handles):
        assert s.wait(r, h)


def one_shot() -> Switch:
    s = _switch()
    for r in range(N):
        _store(s, r, r, 0, NUMEL)
    _barrier(s)
    for r in range(N):
        for k in range(1, N):
            _load(s, r, (r + k) % N, 0, NUMEL)
    return s


def two_shot() -> Switch:
    s, chunk = _switch(), NUMEL // N
    for r in range(N):
        _store(s, r, r, 0, NUMEL)
    _barrier(s)
    for r in range(N):
        for k in range(1, N):
            _load(s, r, (r + k) % N, r * chunk, chunk)
        for k in range(N):
            _store(s, r, (r + k) % N, r * chunk, chunk)
    _barrier(s)
    for r in range(N):
        _load(s, r, r, 0, NUMEL)
    return s


@pytest.mark.parametrize(("make", "size", "expected"), [
    (one_shot, 256 * KiB, 2 * ALPHA + (N - 1) * 256 * KiB / BETA),
    (two_shot, 4 * MiB, 4 * ALPHA + 2 * (N - 1) / N * 4 * MiB / BETA),
], ids=["one-shot-256KiB", "two-shot-4MiB"])
def test_one_shot_and_two_shot_replay_to_their_closed_forms(make, size, expected):
    trace = make().trace()
    assert "race" not in trace
    result = replay(trace, H100, scale=size / (NUMEL * 4))
    assert result.complete
    assert result.time == pytest.approx(expected, rel=1e-3)


def test_a_ranks_loads_overlap_and_its_own_buffer_is_free():
    result = replay(one_shot().trace(), H100, scale=256 * KiB / (NUMEL * 4))
    assert result.steps == 2  # the barrier and the loads, not n - 1 loads one after another
    assert result.link_bytes == {"intra": pytest.approx(N * (N - 1) * 256 * KiB)}
