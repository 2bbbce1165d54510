"""The sizes a bench run sweeps, stepped as nccl-tests steps them."""

import pytest

from cjudge.bench.sweep import sweep


def test_sweep_by_factor_and_by_step() -> None:
    assert sweep(1024, 8192, 2, 1) == [1024, 2048, 4096, 8192]
    assert sweep(1024, 9000, 4, 1) == [1024, 4096]
    assert sweep(1, 4, 1, 1) == [1, 2, 3, 4]


def test_sweep_rejects_empty_or_endless() -> None:
    with pytest.raises(ValueError):
        sweep(10, 5, 2, 1)
    with pytest.raises(ValueError):
        sweep(1, 5, 1, 0)
