"""Inputs are drawn in bulk (numpy where it is there, pure Python where not), and a bulk draw is
the per-element draw it replaces: the same values and the generator left in the same state, so a
seed's cases are the same on every front door, with numpy or without."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cjudge.kit import pieces

SEEDS = st.integers(min_value=0, max_value=2**63)
T = TypeVar("T")


BACKENDS = pytest.mark.parametrize("numpy", [True, False], ids=["numpy", "pure"])


def _draw(numpy: bool, draw: Callable[[], T]) -> T:
    """``draw()`` with numpy, or as where numpy is absent."""
    with pytest.MonkeyPatch.context() as patch:
        if not numpy:
            patch.setattr(pieces, "np", None)
        return draw()


def _per_element_refined(values: list[float], step: float, used: int, headroom: int,
                         dtype: str, rng: random.Random) -> list[float]:
    extra = max(0, pieces.MANTISSA.get(dtype, 0) - headroom - used)
    unit = step / (1 << extra)
    return [v + rng.getrandbits(extra) * unit for v in values]


@BACKENDS
@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, count=st.integers(min_value=0, max_value=300),
       dtype=st.sampled_from(["float32", "float64", "int64"]),
       headroom=st.integers(min_value=0, max_value=24), used=st.integers(min_value=1, max_value=22))
def test_refined_is_the_per_element_draw(numpy: bool, seed: int, count: int, dtype: str,
                                         headroom: int, used: int) -> None:
    values = [k / 16 for k in random.Random(seed ^ 1).choices(range(-4096, 4097), k=count)]
    bulk, single = random.Random(seed), random.Random(seed)
    got = _draw(numpy, lambda: pieces.refined(values, 1 / 16, used, headroom, dtype, bulk))
    want = _per_element_refined(values, 1 / 16, used, headroom, dtype, single)
    assert [v.hex() for v in got] == [v.hex() for v in want]
    assert bulk.getstate() == single.getstate()


@BACKENDS
@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, count=st.integers(min_value=0, max_value=500))
def test_exact_values_are_randint_draws(numpy: bool, seed: int, count: int) -> None:
    bulk, single = random.Random(seed), random.Random(seed)
    got = _draw(numpy, lambda: pieces._exact_values(count, bulk))
    want = [single.randint(-pieces.LIMIT, pieces.LIMIT) / pieces.SCALE for _ in range(count)]
    assert got == want and all(isinstance(v, float) for v in got)
    assert bulk.getstate() == single.getstate()


def test_a_cases_inputs_are_the_same_with_numpy_and_without(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    with_numpy = pieces.exact_inputs(3, 1000, "float64", random.Random(7))
    monkeypatch.setattr(pieces, "np", None)
    assert pieces.exact_inputs(3, 1000, "float64", random.Random(7)) == with_numpy
