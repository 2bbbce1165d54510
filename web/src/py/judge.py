"""Judging in the browser: the kernel's own ``judge_code`` over the simulated runtime.

Each case's switch lives here, in the judge's interpreter (:class:`~.case.BrowserCase`); the
JavaScript hub runs the case's ranks on it. Under JSPI its answer is a promise that suspends the
judge's stack until the case is over; in the workers path the hub answers once its loop has
served the ranks (:func:`.wire.serve`). Either way this code reads as the CLI's does.

A case's run view (its ``timeline``) is drawn when the page asks for it (:func:`timeline`), not
while the cases run: the page shows it in a panel that is closed for an accepted case, and
drawing it took a sixth to a fifth of a full run's time in the worker. The facts of the latest
run's cases are kept for it.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import cjudge_exercises

from cjudge.contract.protocol import CaseSpec, JobSpec, RawCase
from cjudge.contract.verdict_json import CaseResult, dumps
from cjudge.exercise.exercises import load_exercises
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases, summarize
from cjudge.grading.submission import judge_code
from cjudge.switch.ending import unreported
from cjudge.view.present import present_case

from .case import BrowserCase, settled

EXERCISES = load_exercises(cjudge_exercises.ROOT, published=True)
RUNTIME = "sim"
#: the latest run's graded cases by (exercise, case name), with their facts: :func:`timeline`
#: draws from them
SHOWN: dict[tuple[str, str], tuple[CaseFacts, CaseResult]] = {}


def file_name(exercise_id: str) -> str:
    """The learner's file as the page names it (``ring_allreduce.py``): tracebacks say the same."""
    return re.sub(r"[^A-Za-z0-9]+", "_", exercise_id) + ".py"


def run_case(hub: Any, job: JobSpec, spec: CaseSpec) -> RawCase:
    """One case: its switch here, its ranks run by ``hub`` (a JspiHub or a WorkersHub)."""
    case = BrowserCase(job, spec)
    if not case.over:
        with no_cycle_collector():
            settled(hub.run_case(case, json.dumps(job), spec["name"], case.limit_s))
    return case.result()


@contextmanager
def no_cycle_collector() -> Iterator[None]:
    """The cycle collector off while rank stacks may be suspended; its state restored after.

    Pyodide's stack switching breaks ("memory access out of bounds", "table index is out of
    bounds") when the collector runs while rank stacks are suspended; a ping-pong that runs to
    its time limit allocates enough to trigger it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def judge(exercise_id: str, code: str, samples: bool, hub: Any) -> str:
    """The verdict JSON for ``code`` (NaN and infinities encoded: ``JSON.parse`` reads it);
    ``hub`` runs cases and hears about progress."""
    exercise = EXERCISES[exercise_id]
    run = partial(run_case, hub)  # the browser's runtime is the simulated one: it explores
    SHOWN.clear()
    result = judge_code(exercise, code, file_name(exercise_id), run, RUNTIME,
                        only_samples=samples, explore=run,
                        on_case=lambda case: hub.case_done(dumps(case)),
                        present=partial(keep, exercise_id))
    return dumps(result)


def keep(exercise_id: str, facts: CaseFacts, case: CaseResult) -> None:
    """Keep a graded case's facts: its timeline is drawn when the page asks (:func:`timeline`)."""
    SHOWN[exercise_id, case["name"]] = (facts, case)


def timeline(exercise_id: str, name: str) -> str:
    """The ``timeline`` JSON of case ``name`` of the latest run (of ``exercise_id``), drawn now
    (once; ``present_case``, as every front door draws it); ``null`` for a case no longer kept
    (another run since, or a new worker after a time limit)."""
    if (exercise_id, name) not in SHOWN:
        return "null"
    facts, case = SHOWN[exercise_id, name]
    if "timeline" not in case:
        present_case(facts, case)
    return dumps(case["timeline"])


def timed_out(exercise_id: str, samples: bool, name: str, graded_json: str) -> str:
    """The verdict JSON after case ``name`` passed its time limit and its worker was killed.

    ``graded_json`` holds the cases graded before it (their output died with the worker); the
    cases after it are skipped, as ``judge_code`` skips them after a failure. A ``name`` that is
    no planned case is a smaller case the search for the smallest failing one ran after the
    last graded case failed: that search is dropped, the verdict stands.
    """
    exercise = EXERCISES[exercise_id]
    specs = plan_cases(exercise, only_samples=samples)
    graded = json.loads(graded_json)
    at = next((i for i, s in enumerate(specs) if s["name"] == name), None)
    if at is None:
        result = summarize(exercise, graded, RUNTIME, exercise.seed)
        return dumps(result | {"skipped": [s["name"] for s in specs[len(graded):]]})
    job = exercise.job_spec("", file_name(exercise_id))  # the page's job, for its limit
    raw = unreported(job, name, ["running"] * specs[at]["world_size"], "time_limit", None)
    facts = CaseFacts.of(exercise, specs[at], raw)
    case = grade_case(facts)
    present_case(facts, case)
    cases = [*graded, case]
    result = summarize(exercise, cases, RUNTIME, exercise.seed)
    return dumps(result | {"skipped": [s["name"] for s in specs[at + 1:]]})


def perfetto(case_json: str, title: str) -> str:
    """The Chrome trace-event JSON of one graded case (its ``timeline``), as ``--perfetto`` writes it.

    The exporter is imported here, when first asked for: starting the page does not need it."""
    from cjudge.view.perfetto import chrome_trace

    return dumps(chrome_trace(json.loads(case_json), title))
