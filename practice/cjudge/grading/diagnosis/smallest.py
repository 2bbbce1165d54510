"""The smallest failing case: smaller world sizes and tensors on which the learner's code fails
the same way, searched on the simulated runtime in bounded time.

Which cases are smaller is the grader's to say (its optional ``smaller_cases(params, world)``,
e.g. ``cjudge.kit.pieces.smaller_cases``: (world, params) pairs, smallest first, each one the
exercise's algorithm is defined on). A candidate's inputs are the statement's example's
(``example_inputs``) when the grader has them: values a learner reads by hand.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from ...contract.protocol import CaseSpec, JobSpec, RawCase, valid_text
from ...contract.verdict_json import CaseResult
from ...switch.ending import clamped
from ..decide import decide
from ..facts import CaseFacts
from ..grade import grade_case
from .case import Runs
from .generic import drawn_inputs

RunCase = Callable[[JobSpec, CaseSpec], RawCase]
#: the whole search's wall-clock budget, and each candidate's time limit: safety nets against a
#: file that spins on small cases, far above what a candidate takes (milliseconds on the
#: simulated runtime), so that which case is found does not depend on the machine's load
BUDGET_S = 5.0
CANDIDATE_LIMIT_S = 1.0
MAX_TRIES = 12
#: failures a smaller case can show "the same way" (a time limit would cost its whole limit)
SEARCHED = {"wrong_answer", "runtime_error", "deadlock"}
log = logging.getLogger(__name__)


def _spec(exercise: Any, world: int, params: Mapping[str, int | str]) -> CaseSpec:
    """A candidate case with readable inputs where the grader has them."""
    name = _sizes(world, params)
    example = getattr(exercise.grader, "example_inputs", None)
    if example is None:
        inputs = drawn_inputs(exercise, world, params, exercise.seed, name)
    else:
        inputs = example(params, world)
        if exercise.arguments:
            inputs = [{**i, "args": exercise.call_args(params)} for i in inputs]
    return CaseSpec(name=name, world_size=world, sample=True, params=dict(params), inputs=inputs)


def _sizes(world: int, params: Mapping[str, int | str]) -> str:
    """"n = 3, numel = 4"."""
    return ", ".join([f"n = {world}"] + [f"{k} = {v}" for k, v in params.items()
                                         if isinstance(v, int) and not isinstance(v, bool)])


def smallest_failing(exercise: Any, job: JobSpec, failed: CaseSpec, verdict: str,
                     run: RunCase, budget_s: float | None = None) -> CaseResult | None:
    """The smallest candidate case on which ``job`` fails with ``verdict`` (its graded case,
    with ``message``/``message_zh`` saying "fails already at …"), or None: no grader hook, no
    smaller case fails so, or the budget (``BUDGET_S`` by default) ran out first. Total: a
    search that fails is dropped."""
    shrink = getattr(exercise.grader, "smaller_cases", None)
    if shrink is None or verdict not in SEARCHED:
        return None
    deadline = time.monotonic() + (BUDGET_S if budget_s is None else budget_s)
    fast = clamped(job, CANDIDATE_LIMIT_S)
    try:
        for world, params in shrink(failed["params"], failed["world_size"])[:MAX_TRIES]:
            if time.monotonic() >= deadline:
                return None
            spec = _spec(exercise, world, params)
            raw = valid_text(run(fast, spec))
            facts = CaseFacts.of(exercise, spec, raw)
            decision = decide(facts)
            if decision.verdict != verdict:
                continue
            case = grade_case(facts, Runs(run, run, fast), decision)
            en = case["message"].removeprefix(f"case {spec['name']}, ")
            zh = case["message_zh"].removeprefix(f"用例 {spec['name']}，")
            case["message"] = f"fails already at {spec['name']}: {en}"
            case["message_zh"] = f"在 {spec['name']} 时就已失败：{zh}"
            return case
    except Exception:  # noqa: BLE001 - the search is dropped, never the verdict
        log.exception("%s: dropped a smallest-case search that failed", exercise.id)
    return None
