"""A request never waited on is named by the lowest rank that missed one, in that rank's own
order, whatever order the ranks' posts interleaved in on this run."""

from __future__ import annotations

from typing import Any

from cjudge.grading.diagnosis.waits import never_waited


def request(rid: int, rank: int, posted: int, line: int) -> dict[str, Any]:
    return {"id": rid, "rank": rank, "kind": "all_reduce", "api": "all_reduce", "graded": True,
            "posted": posted, "line": line}


def trace(order: list[tuple[int, int, int]]) -> Any:
    """Requests (rank, posted, line), none waited on, the ids in posting order."""
    return {"requests": [request(i, *r) for i, r in enumerate(order)], "waits": []}


def test_the_lowest_rank_is_named_whichever_posted_first():
    early_three = trace([(3, 1, 17), (0, 2, 17), (0, 5, 20), (3, 6, 20)])
    early_zero = trace([(0, 1, 17), (3, 2, 17), (3, 3, 20), (0, 4, 20)])
    for t in (early_three, early_zero):
        said = never_waited(t)
        assert said is not None
        assert said[0].startswith("rank 0's all_reduce (line 17) was never waited on"), said[0]
        assert "3 more requests likewise" in said[0]


def test_every_request_waited_names_none():
    t = trace([(0, 1, 17)])
    t["waits"] = [{"request": 0}]
    assert never_waited(t) is None
