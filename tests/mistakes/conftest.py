"""The corpus asserts what a diagnosis says, not what it costs (``benchmarks/diagnosis_cost.py``
measures that): the smallest-case search gets time enough that a loaded machine cannot cut it
short, which would change its message (the reference's run has the exercise's own limit)."""

from __future__ import annotations

import pytest

from cjudge.grading.diagnosis import smallest


@pytest.fixture(autouse=True)
def unhurried_diagnosis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten times the wall-clock bounds of the smallest-case search."""
    monkeypatch.setattr(smallest, "BUDGET_S", smallest.BUDGET_S * 10)
    monkeypatch.setattr(smallest, "CANDIDATE_LIMIT_S", smallest.CANDIDATE_LIMIT_S * 10)
