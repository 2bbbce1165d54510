"""A judge's function's cost is bounded before it runs and its deadline is checked inside long
work (issue 35): a call that cannot end in time, or does not, stops the case (``time_limit``),
and an output larger than the judge computes at once is refused like an oversize input."""

from __future__ import annotations

import time
from array import array

import pytest

from cjudge.switch import functions
from cjudge.switch.core import Late, Switch, SwitchError

DIM = 4


def _switch(deadline: float | None) -> Switch:
    s = Switch(1, frozenset(), inputs=[{"fn": "scores", "params": {"dim": DIM}}],
               deadline=deadline)
    s.begin(0)
    return s


def _scores(s: Switch, rows: int) -> bytes:
    """One scores(q, k) call with ``rows`` rows of queries and of keys."""
    block = array("d", [0.5] * rows * DIM).tobytes()
    return s.compute(0, 0, block + block, "float64", [rows, DIM], [rows * DIM], 7)


def test_an_output_past_the_judges_limit_is_refused_before_any_work() -> None:
    s = _switch(None)
    with pytest.raises(SwitchError, match="at most 1048576 elements at once, not 1050625"):
        _scores(s, 1025)
    assert not s.late


def test_work_that_cannot_end_before_the_deadline_stops_the_case_without_running() -> None:
    s = _switch(time.monotonic() + 0.01)  # a call of 2^20 scores needs more, on any machine
    with pytest.raises(Late) as caught:
        _scores(s, 1024)
    assert s.late and s.trace()["limit"] == "time" and "computes" not in s.trace()
    assert "时限" in caught.value.zh


def test_long_work_stops_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(functions, "STEPS_PER_S", 10**15)  # the bound lets every call through
    limit = 0.2  # a call of 2^20 scores takes longer, on any machine (``STEPS_PER_S``)
    s = _switch(time.monotonic() + limit)
    start = time.monotonic()
    with pytest.raises(Late):
        _scores(s, 1024)
    # the deadline is looked at every few milliseconds of work: never far past it, however
    # loaded the machine (the margin is generous)
    assert time.monotonic() - start < 1.5 * limit + 1.0
    assert s.late


def test_a_call_in_time_answers_every_score() -> None:
    out = array("d")
    out.frombytes(_scores(_switch(time.monotonic() + 60), 3))
    assert list(out) == [1.0] * 9  # 4 · 0.5 · 0.5 each
