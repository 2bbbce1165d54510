"""A rank's shared segment (cjudge/switch/shm.py): where the judge writes into a rank's area."""

from __future__ import annotations

import pytest

from cjudge.switch.shm import ALIGN, room


@pytest.mark.parametrize(("used", "size", "at"), [
    ([], 10, 0),
    ([(0, 10)], 10, ALIGN),  # after what is used, aligned
    ([(2 * ALIGN, 10)], ALIGN, 0),  # before it, where it fits
    ([(2 * ALIGN, 10)], 2 * ALIGN + 1, 3 * ALIGN),  # not before it: after
    ([(3 * ALIGN, 10), (0, 10)], 2 * ALIGN, ALIGN),  # between two, in any order
    ([(0, 8 * ALIGN - 8)], 10, None),  # no room left in the area
])
def test_the_judge_writes_into_a_rank_area_beside_what_the_rank_may_still_read(
        used: list[tuple[int, int]], size: int, at: int | None):
    assert room(used, size, 8 * ALIGN) == at
