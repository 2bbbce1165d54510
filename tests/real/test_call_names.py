"""One learner file on the simulated and on the real runtime: the switch records its calls under
the same names, and the case's message says the same words (issue 38: torch 2.13 forwards
``reduce_scatter_tensor`` to ``reduce_scatter_single``, which only real torch's group sees)."""

from __future__ import annotations

from pathlib import Path

from cjudge.contract.protocol import CaseSpec, JobSpec, RawCase
from cjudge.grading.submission import RunCase, judge_code
from cjudge.real.runtime import run_case as real
from cjudge.sim.runtime import run_case as sim
from tests.mistakes.corpus import exercise_of

#: a reduce-scatter then an all-gather, a wrong answer diagnosed at the first call
FILE = Path(__file__).parents[1] / "mistakes" / "zero1_step" / "averages_twice.py"


def judged(run_case: RunCase, runtime: str) -> tuple[list[tuple[str, str, int | None]], dict]:
    """The graded calls the switch recorded on the first case (api, kind, line), and that
    case's verdict, the failure explored on the simulated runtime as the CLI does."""
    calls: list[tuple[str, str, int | None]] = []

    def recording(job: JobSpec, spec: CaseSpec) -> RawCase:
        raw = run_case(job, spec)
        if not calls:
            calls.extend((r["api"], r["kind"], r["line"])
                         for r in raw["trace"]["requests"] if r["graded"] and r["rank"] == 0)
        return raw

    result = judge_code(exercise_of(FILE), FILE.read_text(encoding="utf-8"), FILE.name,
                        recording, runtime, only_samples=True, explore=sim)
    return calls, result["cases"][0]


def test_a_file_gets_the_same_call_names_and_message_on_both_runtimes():
    sim_calls, sim_case = judged(sim, "sim")
    real_calls, real_case = judged(real, "torch")
    assert sim_calls == real_calls == [("reduce_scatter_tensor", "reduce_scatter", 19),
                                       ("all_gather_into_tensor", "all_gather", 23)]
    assert real_case["verdict"] == sim_case["verdict"] == "wrong_answer"
    assert "reduce_scatter_tensor (line 19)" in real_case["message"]
    assert (real_case["message"], real_case["message_zh"]) == \
        (sim_case["message"], sim_case["message_zh"])
