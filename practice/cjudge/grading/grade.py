"""The trusted side of grading: plan cases from a seed, grade what a runtime reports, summarise.

Nothing here runs learner code: these functions run outside any sandbox (and in the browser
beside the simulated ranks). A case's verdict is decided in :mod:`.decide`, its words written in
:mod:`.words`, a result compared in :mod:`.compare`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import NamedTuple

from .. import __version__
from ..contract.protocol import CaseSpec
from ..contract.units import plural
from ..contract.verdict_json import CaseResult, Sample, VerdictJSON
from ..contract.verdicts import Verdict
from ..exercise.exercises import Case, Exercise
from ..switch.accounting import graded_calls
from ..switch.explain import deadlock_facts
from .decide import Decision, decide
from .diagnosis.case import Runs, explain
from .facts import CaseFacts
from .seeds import case_seed
from .words import words


class PlannedCase(NamedTuple):
    """A case to run, by name: its inputs are made only when ``make`` is called, so that one
    case's inputs (and expected values) exist at a time."""

    name: str
    make: Callable[[], CaseSpec]

    @classmethod
    def made(cls, spec: CaseSpec) -> PlannedCase:
        """A case whose inputs are made already."""
        return cls(spec["name"], lambda: spec)


def lazy_cases(exercise: Exercise, seed: int | None = None,
               only_samples: bool = False) -> list[PlannedCase]:
    """The cases to run, each with every rank's inputs made from ``seed`` (the exercise's by
    default) when it is about to run (:func:`case_spec`)."""
    seed = exercise.seed if seed is None else seed
    return [PlannedCase(case.name, functools.partial(case_spec, exercise, case, seed))
            for case in exercise.cases if case.sample or not only_samples]


def plan_cases(exercise: Exercise, seed: int | None = None,
               only_samples: bool = False) -> list[CaseSpec]:
    """The cases to run, every one's inputs made now (see :func:`lazy_cases`)."""
    return [planned.make() for planned in lazy_cases(exercise, seed, only_samples)]


def case_spec(exercise: Exercise, case: Case, seed: int) -> CaseSpec:
    """One case with every rank's inputs made from ``seed``.

    A sample case takes the grader's optional ``example_inputs(case)`` instead: values
    a learner can check by hand, those of the statement's example.
    """
    example = getattr(exercise.grader, "example_inputs", None)
    rng = random.Random(case_seed(seed, case.name))
    if case.sample and example is not None:
        inputs = example(case.params, case.world_size)
    else:
        inputs = exercise.grader.make_inputs(case.params, case.world_size, rng)
    if exercise.arguments:  # each rank gets them with its input, when its graded call starts
        inputs = [{**i, "args": exercise.call_args(case.params)} for i in inputs]
    spec = CaseSpec(name=case.name, world_size=case.world_size, sample=case.sample,
                    params=dict(case.params), inputs=inputs)
    if exercise.payload_bytes == "case-dtype":
        spec["charge_dtype"] = str(case.params["dtype"])
    return spec


def check_compiles(code: str, filename: str) -> tuple[str, str, int | None, int | None] | None:
    """None if ``code`` compiles, else (English message, Chinese message, line, column)."""
    try:
        compile(code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line, col = exc.lineno, exc.offset
        text = (exc.text or "").rstrip("\n")
        pointer = f"\n    {text}\n    {' ' * max((col or 1) - 1, 0)}^" if text else ""
        return (f"{filename}, line {line}, column {col}: {exc.msg}{pointer}",
                f"{filename} 第 {line} 行第 {col} 列：{exc.msg}{pointer}", line, col)
    except ValueError as exc:  # e.g. null bytes
        return (f"{filename}: {exc}", f"{filename}：{exc}", None, None)
    return None


def grade_case(facts: CaseFacts, runs: Runs | None = None,
               decision: Decision | None = None) -> CaseResult:
    """One case of the verdict JSON from the facts of a runtime's report: its verdict, decided
    from the facts (:func:`~.decide.decide`, unless ``decision`` is it already), and its
    message, written once from that decision (:func:`~.words.words`) and, given ``runs``, the
    run's evidence (:func:`~.diagnosis.case.explain`); the case's replay, when grading makes it,
    is kept in ``facts.modelled``. What the case shows beside it (its timeline) is drawn
    afterwards from the same facts (``cjudge.view.present``)."""
    spec, raw = facts.spec, facts.raw
    decision = decide(facts) if decision is None else decision
    en, zh = words(facts, decision)
    if runs is not None:
        en, zh = explain(facts, decision.verdict, (en, zh), runs)
    result = CaseResult(name=spec["name"], world_size=spec["world_size"], bytes_sent=facts.sent,
                        bytes_bound=max(facts.bounds), messages_sent=facts.messages,
                        wall_ms=round(raw["wall_ms"], 1), trace=graded_calls(raw["trace"]),
                        verdict=decision.verdict, message=en, message_zh=zh,
                        details=list(decision.details))
    if facts.per_rank:  # e.g. a root's bound and the leaves'
        result["bytes_bounds"] = facts.bounds
    if decision.verdict is Verdict.DEADLOCK:  # as data too: the web app draws it
        result["deadlock"] = deadlock_facts(raw["trace"], raw["ranks"])
    if facts.memory is not None:
        result["memory"] = facts.memory
    if facts.modelled is not None:
        result["model"] = facts.modelled.model
    if spec["sample"]:  # learners see the sample case in full
        result["sample"] = Sample(inputs=spec["inputs"],
                                  outputs=[r["output"] for r in raw["ranks"]],
                                  expected=facts.expected)
    return result


def summarize(exercise: Exercise, cases: list[CaseResult], runtime: str, seed: int,
              stdout: str = "",
              compile_error: tuple[str, str, int | None, int | None] | None = None
              ) -> VerdictJSON:
    """The verdict JSON: the first failing case's verdict, or compile_error, or accepted."""
    if compile_error is not None:
        verdict, message, message_zh = Verdict.COMPILE_ERROR, compile_error[0], compile_error[1]
    else:
        failing = next((c for c in cases if c["verdict"] != Verdict.ACCEPTED), None)
        verdict = Verdict(failing["verdict"]) if failing else Verdict.ACCEPTED
        message = failing["message"] if failing else f"all {plural(len(cases), 'case')} passed"
        message_zh = failing["message_zh"] if failing else f"全部 {len(cases)} 个用例通过"
    result = VerdictJSON(
        exercise=exercise.id, verdict=verdict, message=message, message_zh=message_zh,
        runtime=runtime, cases=cases, stdout=stdout, judge_version=__version__, seed=seed,
        exercise_hash=exercise.content_hash)
    if compile_error is not None:
        result["line"], result["column"] = compile_error[2], compile_error[3]
    return result
