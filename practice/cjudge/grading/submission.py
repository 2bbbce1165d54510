"""Judging one submission end to end in this process: compile check, run every case, grade."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..contract.protocol import CaseSpec, JobSpec, RawCase, valid_text
from ..contract.verdict_json import CaseResult, VerdictJSON
from ..contract.verdicts import Verdict
from ..exercise.exercises import Exercise
from ..view.present import present_case
from .diagnosis.case import Runs
from .diagnosis.smallest import smallest_failing
from .facts import CaseFacts
from .grade import PlannedCase, check_compiles, grade_case, lazy_cases, summarize

RunCase = Callable[[JobSpec, CaseSpec], RawCase]
#: what a front door shows beside a graded case: ``present_case`` adds its timeline in place
Present = Callable[[CaseFacts, CaseResult], None]
log = logging.getLogger(__name__)


def judge_code(exercise: Exercise, code: str, filename: str, run_case: RunCase, runtime: str,
               seed: int | None = None, only_samples: bool = False, all_cases: bool = False,
               on_case: Callable[[CaseResult], None] | None = None,
               cases: list[CaseSpec] | None = None, explore: RunCase | None = None,
               reference: RunCase | None = None, rerun: RunCase | None = None,
               present: Present = present_case) -> VerdictJSON:
    """The verdict JSON for ``code``, running each case with ``run_case`` (a runtime's).

    Cases (``cases`` if planned already with ``seed``, else planned here, each one's inputs
    made just before it runs) run in order (the sample first) and stop at the first that fails
    unless ``all_cases``; the cases not run are listed under ``skipped``. A wrong answer's
    message names its cause from the run's evidence (``cjudge.grading.diagnosis``): the
    reference's run on the same inputs, on ``explore`` (the simulated runtime, where the
    learner's code may also run unconfined: it then also finds the smallest case that fails the
    same way, ``smallest``) or else ``reference`` (where only the reference's code runs: the
    server's), and the learner's code run again on a generic draw, on ``explore`` or ``rerun``
    (the server's sandbox). ``present`` adds what a case shows beside its verdict (its
    timeline); a front door that draws it only when asked (the browser) keeps the facts instead.
    """
    seed = exercise.seed if seed is None else seed
    error = check_compiles(code, filename)
    if error is not None:
        return summarize(exercise, [], runtime, seed, compile_error=error)
    job = exercise.job_spec(code, filename)
    runs = Runs(explore or reference, explore or rerun, job)
    planned = lazy_cases(exercise, seed, only_samples=only_samples) if cases is None else \
        [PlannedCase.made(spec) for spec in cases]
    results: list[CaseResult] = []
    output, skipped = [], []
    for case in planned:  # one case's inputs at a time: made here, dropped with the next
        if results and results[-1]["verdict"] != "accepted" and not all_cases:
            skipped.append(case.name)
            continue
        spec = case.make()
        raw = valid_text(run_case(job, spec))  # the ranks' text, where it enters the judge
        results.append(_graded(exercise, spec, raw, runs, present))
        if raw["stdout"]:
            output.append(f"--- {spec['name']} ---\n{raw['stdout']}")
        if on_case is not None:
            on_case(results[-1])
        # after on_case: a front door that stops a search gone past its limit has the case graded
        if explore is not None:
            _add_smallest(exercise, job, spec, results, explore)
        exercise.grader.forget()  # one case's inputs and expected results at a time
    stdout = "\n".join(output)[: job["output_limit_bytes"]]
    verdict = summarize(exercise, results, runtime, seed, stdout=stdout)
    verdict["skipped"] = skipped
    return verdict


def _graded(exercise: Exercise, spec: CaseSpec, raw: RawCase, runs: Runs,
            present: Present = present_case) -> CaseResult:
    """One case's result from the ranks' text, its message naming the cause from ``runs`` (the
    reference's beside it, the learner's again on a generic draw); ``judge_error`` where grading
    itself fails."""
    try:
        facts = CaseFacts.of(exercise, spec, raw)
        result = grade_case(facts, runs)
        present(facts, result)
    except Exception as exc:  # noqa: BLE001 - the judge's defect: say so, blame nobody
        return _judge_error(exercise, spec, raw, exc)
    return result


def _add_smallest(exercise: Exercise, job: JobSpec, spec: CaseSpec, results: list[CaseResult],
                  explore: RunCase) -> None:
    """The smallest case that fails as the first failing case does (``smallest``), found on
    ``explore`` when the last of ``results`` is that case."""
    result = results[-1]
    if result["verdict"] == "accepted" or any(r["verdict"] != "accepted" for r in results[:-1]):
        return
    smaller = smallest_failing(exercise, job, spec, result["verdict"], explore)
    if smaller is not None:
        result["smallest"] = smaller


def _judge_error(exercise: Exercise, spec: CaseSpec, raw: RawCase,
                 exc: Exception) -> CaseResult:
    """The case the judge failed to grade: ``judge_error``, never the learner's fault (logged
    with its traceback; the verdict JSON names the judge's version and the exercise's hash)."""
    log.exception("%s, case %s: grading failed", exercise.id, spec["name"])
    what = f"{type(exc).__name__}: {exc}"[:300]
    return {"name": spec["name"], "world_size": spec["world_size"], "verdict": Verdict.JUDGE_ERROR,
            "message": f"the judge failed while grading this case ({what}). This is a defect "
                       "of the judge, not of your code; please report it",
            "message_zh": f"评测机在评判本用例时出错（{what}）。这是评测机的缺陷，不是你的代码"
                          "的问题；请报告此问题",
            "details": [], "bytes_sent": [], "bytes_bound": 0, "messages_sent": [],
            "wall_ms": round(raw["wall_ms"], 1), "trace": []}
