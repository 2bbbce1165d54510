"""What crossed a judge's function's boundary (issue 35): the switch marks a graded send with
the sender's earlier call whose output (or one unit of it) the payload is, so a grader can tell a
stage's output from a value the rank computed itself, or sent before calling the function."""

from __future__ import annotations

import struct

from cjudge.switch.core import Switch

STAGE = {"fn": "affine", "params": {"scale": 1, "shift": 8, "label": "fwd", "unit": 2}}


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def _switch() -> Switch:
    s = Switch(2, frozenset({"send", "recv"}), inputs=[{"call": [STAGE]}, {"call": [STAGE]}])
    s.begin(0)
    s.begin(1)
    return s


def _send(s: Switch, payload: bytes) -> dict:
    rid = s.post_send(0, 0, 1, 0, payload, "float32", 7, "isend")
    return s.trace()["requests"][rid - 1]


def test_a_send_of_a_calls_output_carries_that_call() -> None:
    s = _switch()
    out = s.compute(0, 0, f32(1, 2), "float32", [2], None, 5)
    assert _send(s, out)["carries"] == 0


def test_a_value_sent_before_the_call_that_makes_it_carries_nothing() -> None:
    s = _switch()
    assert "carries" not in _send(s, f32(9, 10))  # what fwd(x) will return, computed by hand
    s.compute(0, 0, f32(1, 2), "float32", [2], None, 5)
    assert "carries" not in _send(s, f32(9, 11))  # not its output either


def test_one_microbatch_of_a_stacked_call_carries_the_call() -> None:
    s = _switch()
    s.compute(0, 0, f32(1, 2, 3, 4), "float32", [2, 2], None, 5)
    assert _send(s, f32(11, 12))["carries"] == 0
