"""What a hang report says about who did not finish what."""

from cjudge.bench.config import Step
from cjudge.bench.monitor import describe_hang, where

STEPS = [Step("all_reduce", 1024), Step("ring-allreduce", 1024)]


def test_where_names_phase_and_step() -> None:
    assert where(0, STEPS) == "the correctness check of all_reduce 1 KiB"
    assert where(5, STEPS) == "the timed iterations of ring-allreduce 1 KiB"
    assert where(6, STEPS) == "the end of the run"


def test_describe_hang_names_the_ranks_behind_and_ahead() -> None:
    text = describe_hang([4, 3, 4], STEPS, 5)
    assert text.startswith("no progress for 5 s: rank 1 did not finish the correctness check of "
                           "ring-allreduce 1 KiB; ranks 0, 2 finished it and are in the warm-up")
    assert describe_hang([0, 0], STEPS, 2.5).startswith(
        "no progress for 2.5 s: ranks 0, 1 did not finish the correctness check of all_reduce")
