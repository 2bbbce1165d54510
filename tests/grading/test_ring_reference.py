"""The ring all-reduce's reference moves a chunk larger than its segment (1 MiB) in segments, two
in flight, as gloo's own ring does; a chunk no larger travels whole. So on the exercise's cases,
whose chunks are kilobytes, its run is the plain ring's: one message per step, which the known-
wrong files' diagnoses are compared with. On big cases it takes more messages but the ring's
2(n − 1) steps, within the ``[messages]`` bound (issue 37: bench at line rate)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.real.runtime import run_case as run_real_case
from cjudge.sim.runtime import run_case
from tests.bench.helpers import run_bench
from tests.real.scratch import ring_with_cases

RING = load_exercises(default_root())["ring-allreduce"]
SEGMENT = 1 << 18  # float32 elements in the reference's 1 MiB segment


def test_on_the_exercises_cases_each_step_is_one_whole_chunk():
    result = judge_code(RING, RING.solution, "solution.py", run_case, "sim", all_cases=True)
    for case in result["cases"]:
        n = case["world_size"]
        assert case["verdict"] == "accepted", case["message"]
        assert case["messages_sent"] == [2 * (n - 1)] * n, case["name"]


@pytest.mark.parametrize(("runtime", "run"), [("sim", run_case), ("torch", run_real_case)])
def test_big_chunks_travel_in_segments_within_the_rings_steps(tmp_path: Path, runtime: str, run):
    """Chunks of 2.5 segments on 2 ranks and of 1.5 on 3, of unequal sizes (N not a multiple
    of n): correct, within the ring's bytes, more messages than steps, and accepted."""
    sizes = [(2, 5 * SEGMENT + 1), (3, 4 * SEGMENT + 2 * SEGMENT // 3 + 1)]
    ex = ring_with_cases(tmp_path, sizes)
    result = judge_code(ex, ex.solution, "solution.py", run, runtime, all_cases=True)
    for case, (n, numel) in zip(result["cases"][1:], sizes, strict=True):
        assert case["verdict"] == "accepted", case["message"]
        segments = math.ceil(math.ceil(numel / n) / SEGMENT)  # of the largest chunk
        assert max(case["messages_sent"]) == 2 * (n - 1) * segments > 2 * (n - 1)
        if "timeline" in case:
            assert max(m["bytes"] for m in case["timeline"]["messages"]) == SEGMENT * 4


def test_bench_checks_the_segmented_reference_against_gloo(tmp_path: Path):
    """``bench ring-allreduce`` at 5 MiB on 2 ranks: chunks of 2.5 segments, no wrong element."""
    run = run_bench(tmp_path, "ring-allreduce", "-b", "5M", "-e", "5M", "-n", "2", "-w", "1",
                    "--nproc", "2", "--backend", "gloo")
    assert run.code == 0, run.stderr
    learner = next(s for s in run.doc["series"] if s["kind"] == "learner")
    assert [row["wrong"] for row in learner["rows"]] == [0], learner["rows"]
