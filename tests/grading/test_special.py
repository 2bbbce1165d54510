"""cjudge.exercise.special: erf and tanh in decimal arithmetic, within the C library's error of them (glibc
documents up to 2 ulp; its last bits differ from Pyodide's musl, which is why the judge has its
own)."""

from __future__ import annotations

import math
import random

import pytest

from cjudge.exercise.special import erf, tanh


def test_erf_and_tanh_agree_with_the_c_library_within_rounding():
    rnd = random.Random(0)
    for x in [rnd.uniform(-8, 8) for _ in range(2000)] + [rnd.uniform(-1e-3, 1e-3) for _ in range(200)]:
        assert math.isclose(erf(x), math.erf(x), rel_tol=5e-16, abs_tol=1e-300), x
        assert math.isclose(tanh(x), math.tanh(x), rel_tol=5e-16, abs_tol=1e-300), x


@pytest.mark.parametrize("x", [0.0, -0.0, 1e-300, -1e-12, 6.0, -40.0, 25.0, math.inf, -math.inf])
def test_edges(x):
    assert erf(x) == math.erf(x) and math.copysign(1, erf(x)) == math.copysign(1, math.erf(x))
    assert tanh(x) == math.tanh(x)


def test_tanh_is_correctly_rounded_where_glibc_is_two_ulp_off():
    assert tanh(-0.37550412784990783) == -0.35879670668787195


def test_nan_stays_nan():
    assert math.isnan(erf(math.nan)) and math.isnan(tanh(math.nan))
