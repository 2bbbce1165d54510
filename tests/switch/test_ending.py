"""When a case ends: ``switch.ending.ended``, the one rule every runtime applies, in its order."""

from __future__ import annotations

import textwrap

import pytest

from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.real.runtime import run_case as run_real
from cjudge.sim.runtime import run_case as run_sim
from cjudge.switch.core import Switch
from cjudge.switch.ending import Ended, clamped, ended, report_due, start_clock, unreported
from tests.grading.helpers import EXERCISES

JOB = {"time_limit_s": 5.0}


def _switch(world: int = 2) -> Switch:
    return Switch(world, frozenset({"send", "recv"}))


def test_a_running_case_goes_on_until_its_deadline():
    s = _switch()
    assert ended(s, 1e9, printed_too_much=False) is None  # no clock yet: no deadline
    assert start_clock(s, JOB, 100.0) == s.deadline == 105.0
    assert ended(s, 104.9, printed_too_much=False) is None
    assert ended(s, 105.0, printed_too_much=False) == Ended("time_limit")


def test_every_rank_finished_ends_the_case_without_a_stop():
    s = _switch()
    start_clock(s, JOB, 0.0)
    s.finish(0, "returned")
    assert ended(s, 1.0, printed_too_much=False) is None
    s.finish(1, "failed")
    assert ended(s, 1.0, printed_too_much=False) == Ended(None)
    assert ended(s, 99.0, printed_too_much=False) == Ended(None)  # finished before the clock ran out


@pytest.mark.parametrize(("flag", "stop"), [("printed", "output_limit"), ("flooded", "trace_limit"),
                                            ("late", "time_limit")])
def test_a_limit_broken_wins_even_when_every_rank_finished(flag, stop):
    s = _switch()
    start_clock(s, JOB, 0.0)
    s.finish(0, "returned")
    s.finish(1, "returned")
    s.flooded, s.late = flag == "flooded", flag == "late"
    assert ended(s, 1.0, printed_too_much=flag == "printed") == Ended(stop)


def test_printing_too_much_is_named_before_a_flood_or_a_late_call():
    s = _switch()
    s.flooded = s.late = True
    assert ended(s, 0.0, printed_too_much=True) == Ended("output_limit")
    assert ended(s, 0.0, printed_too_much=False) == Ended("trace_limit")


def test_the_diagnosis_runs_under_a_shorter_limit_and_its_host_waits_past_it():
    job = {"time_limit_s": 5.0, "code": "x"}
    assert clamped(job, 2.0) == {"time_limit_s": 2.0, "code": "x"}
    assert clamped(job, 9.0)["time_limit_s"] == 5.0
    assert job["time_limit_s"] == 5.0  # the job itself is untouched
    assert report_due(job, 10.0, 2.0) == 17.0


PRINTS_PAST_THE_LIMIT_THEN_RETURNS = """
def ring_all_reduce(t):
    print("x" * 200_000)
"""


@pytest.mark.parametrize("run", [run_sim, run_real], ids=["sim", "real"])
def test_every_runtime_stops_a_case_that_printed_past_the_limit_though_it_returned(run):
    """The rule's order on the runtimes themselves: the ranks print more than the output limit
    and return at once, so the case may be over on both counts in one look; it is
    ``output_limit`` on the simulated and the real runtime alike."""
    ex = EXERCISES["ring-allreduce"]
    spec = plan_cases(ex, only_samples=True)[0]
    job = ex.job_spec(textwrap.dedent(PRINTS_PAST_THE_LIMIT_THEN_RETURNS), "learner.py")
    raw = run(job, spec)
    assert raw["stop"] == "output_limit"
    assert grade_case(CaseFacts.of(ex, spec, raw))["verdict"] == "output_limit"


def test_a_stop_message_names_the_limit_the_case_ran_under():
    ex = EXERCISES["ring-allreduce"]
    spec = plan_cases(ex, only_samples=True)[0]
    job = clamped(ex.job_spec("def ring_all_reduce(t):\n    while True:\n        pass\n",
                              "learner.py"), 0.5)
    raw = run_sim(job, spec)
    assert raw["trace"]["limit_s"] == 0.5  # the record says which limit it ran under
    case = grade_case(CaseFacts.of(ex, spec, raw))
    assert case["verdict"] == "time_limit"
    assert case["message"].endswith("after the 0.5 s limit")


def test_a_case_that_could_not_report_is_recorded_under_its_jobs_limit():
    ex = EXERCISES["ring-allreduce"]
    spec = plan_cases(ex, only_samples=True)[0]
    job = clamped(ex.job_spec("", "learner.py"), 0.25)
    raw = unreported(job, spec["name"], ["running"] * spec["world_size"], "time_limit", 250.0)
    assert raw["trace"]["limit_s"] == 0.25
    assert grade_case(CaseFacts.of(ex, spec, raw))["message"].endswith("after the 0.25 s limit")


def test_a_case_killed_at_its_limit_ran_for_that_limit():
    """``wall_ms`` None (the page's watchdog killed the case): the record's wall time is the
    job's own limit, not one its caller computed."""
    ex = EXERCISES["ring-allreduce"]
    spec = plan_cases(ex, only_samples=True)[0]
    raw = unreported(clamped(ex.job_spec("", "learner.py"), 0.25), spec["name"],
                     ["running"] * spec["world_size"], "time_limit", None)
    assert raw["wall_ms"] == 250.0 and raw["trace"]["limit_s"] == 0.25
