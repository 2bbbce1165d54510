"""Every modelled size from one walk of a case's trace (``replay_sizes``), the same numbers as
one replay per size; and that walk is the case's only one: the trace view and a too-slow
case's critical path read it from the case's facts."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from cjudge.contract.values import input_bytes
from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.model import reference as ref
from cjudge.model import replay as replay_module
from cjudge.model.case import view_size
from cjudge.model.replay import replay, replay_sizes
from cjudge.model.topology import get_topology
from cjudge.sim.runtime import run_case
from cjudge.view.timeline import build_timeline

EXERCISE = load_exercises(default_root())["ring-allreduce"]


@pytest.mark.parametrize("name", [c for c in EXERCISE.model.cases or ()])
def test_grading_a_modelled_case_walks_its_trace_once(name):
    spec = next(s for s in plan_cases(EXERCISE) if s["name"] == name)
    raw = run_case(EXERCISE.job_spec(EXERCISE.solution, "solution.py"), spec)
    before = replay_module.WALKS[0]
    case = grade_case(CaseFacts.of(EXERCISE, spec, raw))
    assert replay_module.WALKS[0] - before == 1
    assert case["verdict"] == "accepted" and len(case["model"]["sizes"]) == 3


@pytest.mark.parametrize(("trace", "topology"), [
    (ref.ring_all_reduce(8, 8000), "h100x8"),
    (ref.ring_all_reduce(16, 16000), "h100x8x2"),  # one scale's transfers go in another order
    (ref.hierarchical_all_reduce(16, 16000), "h100x8x2"),
    (ref.builtin("all_to_all", 4, 4000), "h100x8"),
], ids=["ring-8", "ring-16-two-nodes", "hierarchical-16", "builtin"])
@pytest.mark.parametrize("contention", [True, False])
def test_one_walk_gives_what_one_replay_per_size_gives(trace, topology, contention):
    topo = get_topology(topology)
    scales = [4096 / 8000, 1e6 / 8000, 1e9 / 8000]
    together = replay_sizes(trace, topo, scales, contention, [0.0, 1e-6, 2e-6])
    alone = [replay(trace, topo, s, contention, compute=c)
             for s, c in zip(scales, [0.0, 1e-6, 2e-6], strict=True)]
    assert [dataclasses.asdict(r) for r in together] == [dataclasses.asdict(r) for r in alone]


def test_a_scale_whose_order_differs_goes_on_apart_in_the_same_walk():
    """On two nodes, the 16-rank ring's transfers become ready in another order at 4 KiB than
    at 1 GB: from where they part, that scale goes on from the walk's state on its own, so the
    trace is walked once and the numbers (spans too) stay those of its own order."""
    trace, topo, scales = ref.ring_all_reduce(16, 16000), get_topology("h100x8x2"), [0.256, 62.5,
                                                                                     62500]
    before = replay_module.WALKS[0]
    together = replay_sizes(trace, topo, scales, record=True)
    assert replay_module.WALKS[0] - before == 1
    alone = [replay(trace, topo, s, record=True) for s in scales]
    assert [dataclasses.asdict(r) for r in together] == [dataclasses.asdict(r) for r in alone]
    before = replay_module.WALKS[0]
    replay_sizes(ref.ring_all_reduce(8, 8000), get_topology("h100x8"), [0.512, 125, 125000])
    assert replay_module.WALKS[0] - before == 1


@pytest.mark.parametrize("code", ["solution.py", "wrong/halves_every_step.py"])
def test_judging_walks_each_case_once_with_its_view(code):
    """Grading, the timeline and a too-slow case's critical path share one walk per case
    (the reference is accepted; halves_every_step is too slow on the modelled cases)."""
    before = replay_module.WALKS[0]
    result = judge_code(EXERCISE, (EXERCISE.path / code).read_text(encoding="utf-8"), code,
                        run_case, "sim", all_cases=True)
    assert replay_module.WALKS[0] - before == len(result["cases"]) == 7
    assert sum(bool(c.get("model", {}).get("sizes")) for c in result["cases"]) == 4


@pytest.mark.parametrize("exercise", ["ring-allreduce", "pipeline-1f1b", "hierarchical-allreduce",
                                      "double-binary-tree"])
def test_the_view_drawn_from_gradings_walk_is_the_one_it_would_replay(exercise):
    ex = load_exercises(default_root())[exercise]
    compared = 0
    for spec in plan_cases(ex):
        raw = run_case(ex.job_spec(ex.solution, "solution.py"), spec)
        facts = CaseFacts.of(ex, spec, raw)
        case = grade_case(facts)
        if facts.modelled is None or facts.modelled.drawn is None:
            continue
        size = view_size(ex.model, case["model"])
        args = (raw["trace"], ex.model, input_bytes(spec), size, None, False, spec["params"])
        assert build_timeline(*args, drawn=facts.modelled.drawn) == build_timeline(*args), \
            (exercise, case["name"])
        compared += 1
    assert compared >= 2


def test_expected_is_computed_once_per_case(monkeypatch):
    """Grading, the diagnosis (the reference's run, a second draw, the smallest case) and the
    view ask for a case's expected results many times; the grader computes them once a case."""
    grader = EXERCISE.grader.module
    real, calls, kept = grader.expected, Counter(), []

    def counting(case, inputs):
        kept.append(inputs)  # alive, so that no later case's inputs get its id
        calls[id(inputs)] += 1
        return real(case, inputs)

    monkeypatch.setattr(grader, "expected", counting)
    code = (EXERCISE.path / "wrong/allgather_adds_instead_of_copy.py").read_text(encoding="utf-8")
    result = judge_code(EXERCISE, code, "wrong.py", run_case, "sim", all_cases=True,
                        explore=run_case)
    assert result["verdict"] == "wrong_answer"
    assert len(calls) >= len(result["cases"]) and set(calls.values()) == {1}, calls
    assert EXERCISE.grader._expected is None  # the last case's inputs do not outlive it
