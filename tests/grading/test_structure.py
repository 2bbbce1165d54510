"""A wrong result read by its structure: one factor throughout, named where it is the unbiased
variance's √((d − 1)/d) for rows of d."""

from __future__ import annotations

import math

from cjudge.grading.diagnosis.structure import one_factor


def tensor(rows: list[list[float]]) -> dict[str, object]:
    return {"shape": [len(rows), len(rows[0])], "dtype": "float64",
            "data": [v for row in rows for v in row]}


WANT = [[0.5, -1.25, 2.0, 0.75], [-0.3, 1.1, -2.2, 0.9]]


def scaled(factor: float, rows: list[list[float]] = WANT) -> dict[str, object]:
    return tensor([[v * factor for v in row] for row in rows])


def test_a_factor_of_the_unbiased_variance_is_named_with_the_fix() -> None:
    said = one_factor(scaled(math.sqrt(3 / 4)), tensor(WANT), 4)
    assert said is not None
    assert "√((4 − 1)/4)" in said[0] and "var(unbiased=False)" in said[0]
    assert "无偏方差" in said[1] and "var(unbiased=False)" in said[1]


def test_another_factor_gets_the_general_reading() -> None:
    said = one_factor(scaled(0.5), tensor(WANT), 4)
    assert said is not None and "0.5 times the expected one" in said[0]
    assert "unbiased" not in said[0]


def test_the_variance_factor_is_read_against_the_rows_length() -> None:
    rows8 = [[float(i) - 3.5 for i in range(8)]]
    said = one_factor(scaled(math.sqrt(3 / 4), rows8), tensor(rows8), 4)
    assert said is None  # rows of 8: that is √(7/8); and √(3/4) is no scale code applies
    said = one_factor(scaled(math.sqrt(7 / 8), rows8), tensor(rows8), 4)
    assert said is not None and "√((8 − 1)/8)" in said[0]


def test_no_single_factor_no_reading() -> None:
    mixed = tensor([[v * (1 + 0.1 * i) for i, v in enumerate(row)] for row in WANT])
    assert one_factor(mixed, tensor(WANT), 4) is None


def test_a_factor_no_code_would_apply_is_not_read_as_a_scale():
    # 1110/1111 and 11: sums of the wrong ranks' digits, not scales
    assert one_factor(scaled(1110 / 1111), tensor(WANT), 4) is None
    assert one_factor(scaled(11.0), tensor(WANT), 8) is None
    said = one_factor(scaled(3 / 8), tensor(WANT), 8)
    assert said is not None and "0.375 times" in said[0]
    said = one_factor(scaled(4.0), tensor(WANT), 4)  # summed where a mean of 4 is due
    assert said is not None and "4 times" in said[0]
