"""The diagnosis's evidence (issue 38): values compared at the exercise's tolerance and never
printed equal as a difference, a departure confirmed on a generic draw, and the same cause on
every door (the server's sandbox runs the learner, the simulated runtime only the reference)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.grading.diagnosis import divergence, smallest
from cjudge.grading.diagnosis.generic import generic_spec, worth_a_second_draw
from cjudge.grading.diagnosis.values import same, shown_apart
from cjudge.grading.grade import plan_cases
from cjudge.grading.submission import judge_code
from cjudge.sim.runtime import run_case
from tests.grading.helpers import exercise

MISTAKES = Path(__file__).resolve().parents[1] / "mistakes"
#: "0.4259 where the reference has 0.4259", "（0.769，而参考解为 0.769）"
SHOWN_EN = re.compile(r"\((-?[\d.]+(?:e[-+]?\d+)?) where [^()]*? has (-?[\d.]+(?:e[-+]?\d+)?)\)")
SHOWN_ZH = re.compile(r"（(-?[\d.]+(?:e[-+]?\d+)?)，而[^（）]*?为 (-?[\d.]+(?:e[-+]?\d+)?)）")


@pytest.fixture(autouse=True)
def unhurried_diagnosis(monkeypatch: pytest.MonkeyPatch) -> None:
    """The smallest-case search gets time enough on a loaded machine."""
    monkeypatch.setattr(smallest, "BUDGET_S", smallest.BUDGET_S * 10)


def first_failing(exercise_id: str, path: Path, **runners) -> dict:
    """The first failing case of the corpus file ``path`` judged on the simulated runtime."""
    ex = exercise(exercise_id)
    result = judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case, "sim",
                        **runners)
    return next(c for c in result["cases"] if c["verdict"] != "accepted")


def test_payloads_are_the_same_within_the_dtypes_tolerance() -> None:
    assert same((1.0, -0.42591), (1.0, -0.42591 * (1 + 1e-12)), "float64")
    assert not same((1.0, -0.42591), (1.0, -0.42591 * (1 + 1e-7)), "float64")
    assert same((1.0,), (1.0 + 1e-7,), "float32")
    assert not same((3,), (4,), "float32")
    assert not same((1.0,), (1.0, 2.0), "float64")


def test_two_different_numbers_never_print_alike() -> None:
    assert shown_apart(-0.42591, -0.42594) == ("-0.42591", "-0.42594")
    assert shown_apart(1.113, 1.1130000001) == ("1.113", "1.1130000001")
    assert shown_apart(3, 4) == ("3", "4")


@pytest.mark.parametrize("path", sorted(MISTAKES.glob("*/last_bits_*.py")), ids=lambda p: p.parent.name)
def test_last_bits_are_no_departure(path: Path) -> None:
    """A correct call whose input differs in its last bits (another order of arithmetic) is not
    where the run departs: the message names the fault after it, and prints no number equal
    to the one it is said to differ from."""
    got = first_failing(path.parent.name.replace("_", "-"), path, explore=run_case)
    assert "first departs" not in got["message"] and "最早偏离" not in got["message_zh"]
    assert not [m for m in SHOWN_EN.findall(got["message"]) if m[0] == m[1]]
    assert not [m for m in SHOWN_ZH.findall(got["message_zh"]) if m[0] == m[1]]


def test_a_coincidence_of_the_sample_is_not_the_cause() -> None:
    """tp-mlp's sample gives rank 0 identity weights: x·W1·W2 is x. A generic draw shows the
    input is computed, so the grader's hint (the gelu after the all-reduce) stays."""
    path = MISTAKES / "tp_mlp" / "gelu_after_all_reduce.py"
    got = first_failing("tp-mlp", path, explore=run_case)
    assert "as it was passed in" not in got["message"] and "原样未变" not in got["message_zh"]
    assert "the gelu goes between the two matmuls" in got["message"]
    assert "gelu 应在两次矩阵乘之间" in got["message_zh"]


def test_a_coincidence_of_a_payload_is_not_the_cause() -> None:
    """alltoall-p2p's sample gives rank 0 an x that starts with 0: a send of the result's
    unwritten zeros reads there as its element 0, "another piece of the buffer". A generic
    draw does not repeat it, so the payload is shown by its values."""
    path = MISTAKES / "alltoall_p2p" / "sends_from_the_result.py"
    ex = exercise("alltoall-p2p")
    sample = plan_cases(ex, only_samples=True)[0]
    mine = run_case(ex.job_spec(path.read_text(encoding="utf-8"), path.name), sample)
    ref = run_case(ex.job_spec(ex.solution, "solution.py"), sample)
    recognised = divergence.explain(ex, sample, mine["trace"], ref["trace"])
    shown = divergence.explain(ex, sample, mine["trace"], ref["trace"], recognise=False)
    assert recognised is not None and "another piece of the buffer" in recognised.en
    assert shown is not None and not shown.named and "another piece" not in shown.en
    got = first_failing("alltoall-p2p", path, explore=run_case)
    assert "another piece of the buffer" not in got["message"]
    assert "缓冲区的另一段" not in got["message_zh"]
    assert "it sends [0] to rank 1, where the direct exchange sends [1]" in got["message"]


def test_a_generic_draw_keeps_the_case_and_changes_its_values() -> None:
    ex = exercise("tp-mlp")
    sample = plan_cases(ex, only_samples=True)[0]
    drawn = generic_spec(ex, sample)
    assert worth_a_second_draw(ex, sample)
    assert (drawn["name"], drawn["world_size"], drawn["params"]) == \
        (sample["name"], sample["world_size"], sample["params"])
    assert drawn["inputs"] != sample["inputs"]


@pytest.mark.parametrize(("folder", "cause"), [
    ("reduce_scatter/ring_allreduce_indices", "your indices are one step off"),
    ("hierarchical_allreduce/rail_ring_by_global_rank", "use the node-local index"),
    ("allreduce_compose/drops_the_tail", "pad to ⌈N/n⌉ = 4"),
])
def test_the_sandboxed_door_says_the_clis_cause(folder: str, cause: str) -> None:
    """The server's sandbox cannot rerun the learner's code on the simulated runtime, but the
    reference's run there (``reference``) gives its official verdict the CLI's words."""
    path = MISTAKES / f"{folder}.py"
    exercise_id = path.parent.name.replace("_", "-")
    cli = first_failing(exercise_id, path, explore=run_case)
    server = first_failing(exercise_id, path, reference=run_case)
    bare = first_failing(exercise_id, path)
    assert cause in cli["message"]
    assert "first departs" in server["message"] and cause in server["message"]
    assert (server["message"], server["message_zh"]) == (cli["message"], cli["message_zh"])
    assert "first departs" not in bare["message"]  # without the reference's run: not said
