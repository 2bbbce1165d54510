"""The graded epoch on the simulated runtime: a receive posted at module level is cancelled when
the graded call starts, and a case whose ranks all returned fails the rank that left a graded
request unfinished (``Switch.reports``, which every runtime builds its reports with)."""

from __future__ import annotations

from .helpers import data, run


def test_a_receive_posted_at_module_level_is_cancelled_when_the_graded_call_starts():
    raw = run("""
        import torch
        import torch.distributed as dist

        rank = dist.get_rank()
        early = torch.zeros(2)
        posted = dist.irecv(early, 1 - rank)

        def f(t):
            dist.isend(t, 1 - rank)
            posted.wait()
            return early
    """, [data([1.0, 2.0]), data([3.0, 4.0])])
    assert raw["stop"] is None
    for report in raw["ranks"]:
        assert report["state"] == "failed"
        assert report["error"]["line"] == 11
        assert "posted before the graded call started" in report["error"]["message"]
    assert raw["trace"]["messages"] == []


def test_a_graded_send_never_received_fails_its_rank_naming_the_line():
    raw = run("""
        import torch.distributed as dist

        def f(t):
            if dist.get_rank() == 0:
                dist.isend(t, 1, tag=3)
            return t
    """, [data([1.0]), data([2.0])])
    assert raw["stop"] is None
    sender, receiver = raw["ranks"]
    assert receiver["state"] == "returned" and sender["state"] == "failed"
    assert sender["error"]["line"] == 6
    assert "(to rank 1, tag 3) was never received" in sender["error"]["message"]
