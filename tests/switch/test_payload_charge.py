"""A payload is charged at the case's dtype (issue 35): a float32 copy of float64 data costs what
the float64 would, in the bytes and in the model; integer metadata and an exercise that teaches
compression are charged as sent."""

from __future__ import annotations

import struct

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.grade import plan_cases
from cjudge.grading.submission import judge_code
from cjudge.kit import pieces
from cjudge.sim.runtime import run_case
from cjudge.switch.core import Switch

ALL = frozenset({"send", "recv", "all_gather", "all_to_all"})
EXERCISES = load_exercises(default_root())

FLOAT32_WIRE = '''
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for phase in range(2):
        for step in range(n - 1):
            send_idx = (rank - step + phase) % n
            recv_idx = (rank - step - 1 + phase) % n
            buf = torch.empty_like(chunks[recv_idx]).float()
            reqs = [dist.isend(chunks[send_idx].float().contiguous(), right), dist.irecv(buf, left)]
            for req in reqs:
                req.wait()
            if phase:
                chunks[recv_idx].copy_(buf.double() if t.dtype == torch.float64 else buf)
            else:
                chunks[recv_idx] += buf.double() if t.dtype == torch.float64 else buf
'''


def _switch(charge: str | None) -> Switch:
    s = Switch(2, ALL, charge_dtype=charge)
    for r in range(2):
        s.begin(r)
    return s


def _exchange(s: Switch, payload: bytes, dtype: str) -> None:
    s.post_send(0, 0, 1, 0, payload, dtype, 1, "isend")
    s.post_recv(1, 0, 0, 0, len(payload), dtype, 2, "irecv")


def test_a_float32_message_in_a_float64_case_is_charged_at_eight_bytes_an_element() -> None:
    s = _switch("float64")
    _exchange(s, struct.pack("<3f", 1, 2, 3), "float32")
    [req] = [r for r in s.trace()["requests"] if r["kind"] == "send"]
    [message] = s.trace()["messages"]
    assert (req["bytes"], req["sent"], message["bytes"]) == (12, 24, 24)  # the model reads 24


def test_integer_codes_narrower_than_the_case_are_charged_at_its_width() -> None:
    s = _switch("float32")
    _exchange(s, struct.pack("<3b", 1, 2, 3), "int8")  # codes of float32 values: 1 B each
    assert [m["bytes"] for m in s.trace()["messages"]] == [12]


def test_integer_metadata_and_a_case_charged_as_sent_count_what_was_sent() -> None:
    counts = _switch("float32")
    _exchange(counts, struct.pack("<3i", 1, 2, 3), "int32")
    as_sent = _switch(None)
    _exchange(as_sent, struct.pack("<3f", 1, 2, 3), "float32")
    for s in (counts, as_sent):
        assert [m["bytes"] for m in s.trace()["messages"]] == [12]
        assert [r["sent"] for r in s.trace()["requests"] if r["kind"] == "send"] == [12]


def test_a_collectives_narrow_payload_is_charged_in_its_bytes_and_its_model_size() -> None:
    s = _switch("float64")
    for r in range(2):
        s.post_collective(r, 0, "all_gather", struct.pack("<2f", r, r), "float32", line=3,
                          api="all_gather")
    [coll] = s.trace()["collectives"]
    assert coll["size"] == [16, 16] and coll["bytes"] == [16, 16]  # (n−1)/n of 2·16 bytes


def test_only_the_compression_exercise_is_charged_as_sent() -> None:
    as_sent = {ex.id for ex in EXERCISES.values() if ex.payload_bytes == "as-sent"}
    assert as_sent == {"compressed-allreduce"}
    ex = EXERCISES["ring-allreduce"]
    assert {spec["charge_dtype"] for spec in plan_cases(ex)} == {"float32", "float64"}
    assert all("charge_dtype" not in s for s in plan_cases(EXERCISES["compressed-allreduce"]))


def test_a_lossless_float32_ring_costs_the_float64_cases_what_the_reference_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # without the kit's low bits the draws are exact in float32, so the float32 wire is lossless
    monkeypatch.setattr(pieces, "MANTISSA", {})
    ex = EXERCISES["ring-allreduce"]
    got = judge_code(ex, FLOAT32_WIRE, "wire.py", run_case, "sim", all_cases=True)
    ref = judge_code(ex, ex.solution, "solution.py", run_case, "sim", all_cases=True)
    assert got["verdict"] == "accepted"
    for mine, theirs in zip(got["cases"], ref["cases"], strict=True):
        assert mine["bytes_sent"] == theirs["bytes_sent"], mine["name"]
        assert mine["model"]["sizes"] == theirs["model"]["sizes"], mine["name"]
