"""The corpus asserts what a diagnosis says, not what it costs (``benchmarks/diagnosis_cost.py``
measures that): the reference's run and the smallest-case search get time enough that a loaded
machine cannot drop them, which would change the message."""

from __future__ import annotations

import pytest

from cjudge.grading.diagnosis import case, smallest


@pytest.fixture(autouse=True)
def unhurried_diagnosis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten times the wall-clock bounds of the reference's run and of the smallest-case search."""
    monkeypatch.setattr(case, "REFERENCE_LIMIT_S", case.REFERENCE_LIMIT_S * 10)
    monkeypatch.setattr(smallest, "BUDGET_S", smallest.BUDGET_S * 10)
    monkeypatch.setattr(smallest, "CANDIDATE_LIMIT_S", smallest.CANDIDATE_LIMIT_S * 10)
