"""Real sizes: the ring all-reduce's reference accepted with megabytes a rank (its tensors cross
the rank's channel as bytes), and a limit of the judge reported as the judge's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.grading.submission import judge_code
from cjudge.real.runtime import run_case
from cjudge.sim.runtime import run_case as run_sim_case
from cjudge.switch.core import Limits
from tests.real.scratch import ring_with_cases

MIB4 = 1 << 20  # float32 elements in 4 MiB


@pytest.mark.parametrize(("runtime", "run"), [("torch", run_case), ("sim", run_sim_case)])
def test_the_reference_is_accepted_at_8_ranks_of_4_mib(tmp_path: Path, runtime: str, run):
    ex = ring_with_cases(tmp_path, [(8, MIB4)])
    result = judge_code(ex, ex.solution, "solution.py", run, runtime, all_cases=True)
    assert [c["verdict"] for c in result["cases"]] == ["accepted", "accepted"], result["message"]
    big = result["cases"][1]
    assert big["bytes_sent"] == [2 * 7 * MIB4 // 8 * 4] * 8  # 2(n-1)/n of 4 MiB, every rank


def test_a_rank_stopped_by_a_limit_of_the_judge_is_a_judge_error(tmp_path: Path):
    ex = ring_with_cases(tmp_path, [])

    def limited(job, spec):
        raw = run_case(job, spec)
        raw["ranks"][1]["state"], raw["ranks"][1]["error"] = "failed", {
            "kind": "judge", "type": "JudgeLimit", "traceback": "", "line": None,
            "message": "the judge cannot carry what this rank sent: too large",
            "message_zh": "评测机无法传送该 rank 发来的数据：过大"}
        return raw

    result = judge_code(ex, ex.solution, "solution.py", limited, "torch")
    assert result["verdict"] == "judge_error"
    assert result["message"].startswith("rank 1: the judge cannot carry what this rank sent")
    assert "not a fault of your code" in result["message"]
    assert "评测机的限制" in result["message_zh"]


def test_one_cases_inputs_are_made_at_a_time_and_a_skipped_case_never(tmp_path: Path,
                                                                     monkeypatch):
    ex = ring_with_cases(tmp_path, [(2, 8), (3, 9), (4, 16)])
    made: list[int] = []
    make = ex.grader.make_inputs
    monkeypatch.setattr(ex.grader, "make_inputs",
                        lambda params, world, rng: made.append(world) or make(params, world, rng))
    before_run: list[list[int]] = []

    def run(job, spec):
        before_run.append(list(made))
        return run_sim_case(job, spec)

    assert judge_code(ex, ex.solution, "solution.py", run, "sim")["verdict"] == "accepted"
    assert before_run[1:] == [made[:made.index(world) + 1] for world in (2, 3, 4)]
    made.clear()
    result = judge_code(ex, "def ring_all_reduce(t):\n    pass\n", "learner.py", run, "sim")
    assert result["verdict"] == "wrong_answer" and len(result["skipped"]) == 3
    assert made == []  # the sample failed: no later case's inputs were ever made


def test_a_cases_limits_grow_with_its_inputs():
    small, big = Limits.for_sizes(4096, 8), Limits.for_sizes(64 << 20, 4)
    assert (small.message_bytes, small.held_bytes) == (Limits().message_bytes, Limits().held_bytes)
    assert big.message_bytes >= 4 * (64 << 20) and big.held_bytes >= 8 * (64 << 20)
