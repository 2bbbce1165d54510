"""Every modelled size from one walk of a case's trace (``replay_sizes``), the same numbers as
one replay per size."""

from __future__ import annotations

import dataclasses

import pytest

from cjudge.exercises import default_root, load_exercises
from cjudge.facts import CaseFacts
from cjudge.grading import grade_case, plan_cases
from cjudge.model import reference as ref
from cjudge.model import replay as replay_module
from cjudge.model.replay import replay, replay_sizes
from cjudge.model.topology import get_topology
from cjudge.sim.runtime import run_case

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


def test_a_scale_whose_order_differs_is_walked_again_and_only_it():
    """On two nodes, the 16-rank ring's transfers become ready in another order at 4 KiB than
    at 1 GB: that scale is walked a second time, so the numbers stay those of its own order."""
    before = replay_module.WALKS[0]
    replay_sizes(ref.ring_all_reduce(16, 16000), get_topology("h100x8x2"), [0.256, 62.5, 62500])
    assert replay_module.WALKS[0] - before == 2
    before = replay_module.WALKS[0]
    replay_sizes(ref.ring_all_reduce(8, 8000), get_topology("h100x8"), [0.512, 125, 125000])
    assert replay_module.WALKS[0] - before == 1
