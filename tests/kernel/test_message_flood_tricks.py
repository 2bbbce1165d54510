"""Messages are not free: every point-to-point exercise's reference with each send and receive
split into one message per element (the same bytes, many more messages: the cheapest way to
move case data in message counts, tags or empty messages costs at least as many) is never
ranked better than the reference. Each case is refused by the message bound (``over_budget``)
or the time bound (``too_slow``), or is accepted no faster and no smaller than the reference;
the per-port gap (LogGP's g) is what makes the flood cost time."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
P2P = sorted(i for i, ex in EXERCISES.items() if "irecv" in ex.allowed and not ex.draft)
#: module-level code before the reference's: dist's point-to-point calls, one message per element
SPLIT = (Path(__file__).parents[1] / "data" / "tricks" / "split_messages.py").read_text()
#: what a split run may end in: refused by a bound, or stopped on its largest cases by the time
#: limit or the cap on requests per case (reported as output_limit)
REFUSED = {"over_budget", "too_slow", "time_limit", "output_limit"}


def _times(case: dict) -> list[float]:
    return [row["time_s"] for row in case.get("model", {}).get("sizes", [])]


@pytest.mark.parametrize("exercise_id", P2P)
def test_one_message_per_element_is_never_ranked_better(exercise_id: str) -> None:
    ex = EXERCISES[exercise_id]
    solution = (ex.path / "solution.py").read_text()
    plain = judge_code(ex, solution, "solution.py", run_case, "sim", all_cases=True)
    split = judge_code(ex, SPLIT + solution, "solution.py", run_case, "sim", all_cases=True)
    reference = {c["name"]: c for c in plain["cases"]}
    for case in split["cases"]:
        assert case["verdict"] in REFUSED | {"accepted"}, case["message"]
        if case["verdict"] == "accepted":
            ref = reference[case["name"]]
            assert case["bytes_sent"] == ref["bytes_sent"], case["name"]
            assert all(t >= r * (1 - 1e-9) for t, r in
                       zip(_times(case), _times(ref), strict=True)), case["name"]
    assert {c["verdict"] for c in split["cases"]} & REFUSED, "a flood went unnoticed"
