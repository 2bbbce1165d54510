"""Reductions over raw bytes (cjudge/switch/reduce.py): numpy's as pure Python's, each made in
one buffer, the first contribution itself only when the caller gives it up."""

from __future__ import annotations

from array import array

import pytest

from cjudge.switch import reduce

PARTS = [array("f", [1.5, float("nan"), -2.0, 3.25]).tobytes(),
         array("f", [0.1, 1.0, float("inf"), -3.25]).tobytes(),
         array("f", [2.0, -1.0, 7.0, 1e30]).tobytes()]


@pytest.mark.skipif(reduce.np is None, reason="numpy is not installed")
@pytest.mark.parametrize("op", ["sum", "avg", "min", "max"])
def test_numpy_reduces_as_pure_python_does(op: str, monkeypatch: pytest.MonkeyPatch):
    vectorized = reduce.reduce_bytes(op, PARTS, "float32")
    monkeypatch.setattr(reduce, "np", None)
    assert bytes(vectorized) == reduce.reduce_bytes(op, PARTS, "float32")


@pytest.mark.parametrize("vectorized", [True, False])
def test_the_first_contribution_is_spent_only_when_given_up(
        vectorized: bool, monkeypatch: pytest.MonkeyPatch):
    if not vectorized:
        monkeypatch.setattr(reduce, "np", None)
    elif reduce.np is None:
        pytest.skip("numpy is not installed")
    kept = [bytearray(p) for p in PARTS]
    result = reduce.reduce_bytes("sum", kept, "float32")
    assert result is not kept[0] and kept == PARTS
    spent = [bytearray(p) for p in PARTS]
    assert reduce.reduce_bytes("sum", spent, "float32", spend_first=True) is spent[0]
    assert spent[0] == result and spent[1:] == PARTS[1:]
