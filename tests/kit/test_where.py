"""A memory count never goes below zero (issue 35): a debt would hide a later peak."""

from __future__ import annotations

import pytest

from cjudge.kit.where import FreedDead, peak


def test_the_peak_is_the_highest_running_total_and_names_its_call() -> None:
    most = peak({0: [(2, "gather", 3), (-2, "use", 4)], 1: [(2, "gather", 3), (2, "gather", 3)]})
    assert (most.held, most.rank, most.call, most.count, most.line) == (4, 1, "gather", 2, 3)


def test_freeing_what_is_not_alive_is_an_error_naming_the_call_and_line() -> None:
    # freed first, then gathered twice: summed, the debt would hide the peak of 2
    with pytest.raises(FreedDead) as caught:
        peak({0: [(2, "gather", 3), (-2, "use", 4)],
              1: [(-2, "use", 9), (2, "gather", 7), (2, "gather", 7)]}, 2)
    assert "rank 1's use call 1 (line 9)" in caught.value.en
    assert "第 9 行" in caught.value.zh and "rank 1" in caught.value.zh
