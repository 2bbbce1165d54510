"""Fresh inputs per submission, one verdict: the server draws a new seed for every submission,
and a mistake a case exists to catch is caught in every draw (issue 35)."""

from __future__ import annotations

from server.localserver import EXERCISES, JudgeServer

NO_MAX_SHIFT = (EXERCISES / "ring-attention" / "wrong" / "no_max_shift.py").read_text()


def test_no_max_shift_is_rejected_in_every_one_of_20_submissions(judge: JudgeServer) -> None:
    # two learners, five queued each at a time: within the per-user queue and rate bounds
    learners = [judge.register(), judge.register()]
    verdicts: list[str] = []
    for _ in range(2):
        batch = [(token, judge.submit(token, NO_MAX_SHIFT, exercise="ring-attention"))
                 for token in learners for _ in range(5)]
        verdicts += [judge.wait(token, sid, timeout_s=300)["verdict"] for token, sid in batch]
    assert verdicts == ["wrong_answer"] * 20
