"""A case's one schedule (``model.schedule``): grading writes a too-slow case's words from its
critical path, and the trace view draws the same schedule without writing words back."""

from __future__ import annotations

import copy

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.model import schedule as schedule_module
from cjudge.sim.runtime import run_case
from cjudge.view.present import present_case

EXERCISE = load_exercises(default_root())["ring-allreduce"]
SLOW = "wrong/halves_every_step.py"  # too slow on the modelled 8-rank case


def _graded_slow() -> tuple[CaseFacts, dict]:
    spec = next(s for s in plan_cases(EXERCISE) if s["world_size"] == 8)
    code = (EXERCISE.path / SLOW).read_text(encoding="utf-8")
    raw = run_case(EXERCISE.job_spec(code, "slow.py"), spec)
    facts = CaseFacts.of(EXERCISE, spec, raw)
    return facts, dict(grade_case(facts))


def test_grading_alone_names_a_too_slow_cases_critical_path():
    facts, case = _graded_slow()
    assert case["verdict"] == "too_slow"
    hops = facts.schedule.critical
    assert len(hops) == 28 and all(h.src is not None for h in hops)
    assert f"Its critical path is {len(hops)} transfers one after another" in case["message"]
    assert f"关键路径是先后相继的 {len(hops)} 次传输" in case["message_zh"]


def test_the_view_draws_the_facts_schedule_and_writes_no_words():
    facts, case = _graded_slow()
    words = (case["message"], case["message_zh"])
    before = copy.deepcopy(case)
    present_case(facts, case)
    assert (case["message"], case["message_zh"]) == words
    assert {k: v for k, v in case.items() if k != "timeline"} == before
    drawn = [(hop["kind"], hop["id"]) for hop in case["timeline"]["critical"]]
    assert drawn == [("message" if h.key[0] == "m" else "collective", h.key[1])
                     for h in facts.schedule.critical]


def test_each_case_is_scheduled_once(monkeypatch):
    """Grading's words, the view and the diagnosis read one schedule per case."""
    made = []
    real = schedule_module.case_schedule

    def counting(*args, **kwargs):
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr("cjudge.grading.facts.case_schedule", counting)
    code = (EXERCISE.path / SLOW).read_text(encoding="utf-8")
    result = judge_code(EXERCISE, code, "slow.py", run_case, "sim", all_cases=True)
    assert result["verdict"] == "too_slow"
    assert len(made) == len(result["cases"]) and len({id(t) for t in made}) == len(made)
