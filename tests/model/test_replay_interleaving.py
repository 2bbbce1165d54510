"""The modelled time is the program's, not the interleaving's: the same ranks' programs, their
events interleaved another way by the switch (another order of posts and waits across ranks,
other match times), replay to the same times. Leaderboards rank by it, so two submissions of
one file must never be ranked apart by the scheduler."""

from __future__ import annotations

import random

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.grade import plan_cases
from cjudge.model.replay import replay
from cjudge.model.topology import get_topology
from cjudge.sim.runtime import run_case
from cjudge.switch.trace import SwitchTrace

EXERCISES = load_exercises(default_root())
#: references whose messages compete for ports at equal modelled times
IDS = ["double-binary-tree", "alltoall-p2p", "hierarchical-allreduce", "ring-allreduce"]


def reinterleaved(trace: SwitchTrace, rng: random.Random) -> SwitchTrace:
    """``trace`` with every rank's events kept in its own order but merged with the other ranks'
    in a random order: new switch times for posts, waits, computes and matches."""
    events: list[list[tuple[int, str, dict]]] = [[] for _ in range(trace["world_size"])]
    for r in trace["requests"]:
        events[r["rank"]].append((r["posted"], "posted", r))
    for w in trace["waits"]:
        events[w["rank"]].append((w["begin"], "begin", w))
    for c in trace.get("computes", []):
        events[c["rank"]].append((c["t"], "t", c))
    queues = [sorted(e, key=lambda item: item[0]) for e in events]
    clock = 0
    while any(queues):
        clock += 1
        _, key, record = rng.choice([q for q in queues if q]).pop(0)
        record[key] = clock  # type: ignore[literal-required]
    for m in trace["messages"]:
        m["matched"] = rng.randint(1, clock)
    return trace


@pytest.mark.parametrize("exercise_id", IDS)
def test_another_interleaving_replays_to_the_same_times(exercise_id: str) -> None:
    ex = EXERCISES[exercise_id]
    job = ex.job_spec((ex.path / "solution.py").read_text(), "solution.py")
    topo, rng = get_topology("h100x8"), random.Random(7)
    for spec in plan_cases(ex):
        trace = run_case(job, spec)["trace"]
        for scale in (1.0, 1e4):
            first = replay(trace, topo, scale)
            for _ in range(5):
                again = replay(reinterleaved(trace, rng), topo, scale)
                assert (again.time, again.steps) == (first.time, first.steps), spec["name"]
