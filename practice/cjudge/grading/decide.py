"""A case's verdict and the reason for it, decided from its facts (:func:`decide`), without a
word: :mod:`.words` writes the message from the same decision.

The rules, in their order: a call the exercise refused; a stop of the judge's (deadlock, time,
output, the record's size, memory), unless a rank's own failure explains why its peers hung; a
rank's failure; then, for a run in which every rank returned, its results, a race on symmetric
memory, the judge's functions' inputs, the memory peak, the grader's traffic rule, the modelled
time and the steps. The first that fails decides.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import NamedTuple

from ..contract import values
from ..contract.protocol import RankReport, RawCase
from ..contract.verdict_json import MemoryUse
from ..contract.verdicts import Verdict
from ..kit.where import FreedDead
from ..model.case import model_case
from ..model.steps import steps_per_rank
from ..switch.accounting import graded_calls
from ..switch.trace import Refusal
from .compare import first_difference
from .facts import CaseFacts, WrongAnswer

#: a judge defect found while grading (the learner is never blamed for it)
log = logging.getLogger(__name__)
STOP_VERDICTS = {"deadlock": Verdict.DEADLOCK, "time_limit": Verdict.TIME_LIMIT,
                 "output_limit": Verdict.OUTPUT_LIMIT, "memory_limit": Verdict.MEMORY_LIMIT,
                 "trace_limit": Verdict.OUTPUT_LIMIT}


class Reason(StrEnum):
    """Why a case got its verdict: what :mod:`.words` puts into words."""

    REFUSED = "refused"  # a call the exercise does not allow
    STOPPED = "stopped"  # the judge stopped the ranks (the raw case's ``stop``)
    RANK_FAILED = "rank_failed"  # a rank raised, was killed, ran out of memory or was refused
    WRONG_RESULT = "wrong_result"  # a rank's result differs (``facts.wrong``)
    NOT_FINISHED = "not_finished"  # a rank never finished its call
    RACE = "race"  # symmetric memory read or written with no barrier between
    OVER_BYTES = "over_bytes"  # a rank sent more bytes than its bound
    COMPUTES = "computes"  # the grader: the judge's functions were not given what travelled
    FREED_DEAD = "freed_dead"  # the grader's memory count: a freed buffer was used
    OVER_MEMORY = "over_memory"  # the grader's memory count: the peak is over its bound
    TRAFFIC = "traffic"  # the grader's traffic rule, over budget
    TRAFFIC_VERDICT = "traffic_verdict"  # the grader's traffic rule, with a verdict of its own
    INCOMPLETE_MODEL = "incomplete_model"  # the replay lost what the switch saw (the judge's)
    TOO_SLOW = "too_slow"  # the modelled time is over the bound
    OVER_STEPS = "over_steps"  # more steps than the exercise's algorithm needs
    CORRECT = "correct"


class Decision(NamedTuple):
    """A case's verdict, its reason and the evidence the reason's words need: the rank it is
    about (``report``, or ``rank`` with ``numbers``), the refused call, what a grader's hook
    said; ``details``: tracebacks shown beside the message."""

    verdict: Verdict
    reason: Reason
    report: RankReport | None = None
    refusal: Refusal | None = None
    rank: int | None = None
    numbers: tuple[int, ...] = ()
    said: tuple[str, str] | None = None
    details: tuple[str, ...] = ()


def decide(facts: CaseFacts) -> Decision:
    """The case's verdict and reason (see the module's docstring). Keeps on ``facts`` what the
    words and the view read: the first difference (``wrong``), the memory count (``memory``)
    and the case's replay (``modelled``)."""
    raw = facts.raw
    failed = _failed_rank(raw)
    stop = raw["stop"]
    refusal = _first_refusal(raw)
    if refusal is not None:
        return Decision(Verdict.FORBIDDEN_PRIMITIVE, Reason.REFUSED, refusal=refusal,
                        details=failed.details if failed is not None else ())
    if stop in ("output_limit", "memory_limit", "trace_limit") or \
            (stop is not None and (failed is None or raw["trace"].get("limit") == "time")):
        return Decision(STOP_VERDICTS[stop], Reason.STOPPED)
    if failed is not None:  # a rank's error explains why its peers hung or spun
        return failed
    return _decide_finished(facts)


def _failed_rank(raw: RawCase) -> Decision | None:
    """The first rank's error as a decision, with its traceback, if any rank failed."""
    for report in raw["ranks"]:
        err = report["error"]
        if err is None:
            continue
        kind = err["kind"]
        verdict = {"forbidden": Verdict.FORBIDDEN_PRIMITIVE, "judge": Verdict.JUDGE_ERROR,
                   "memory": Verdict.MEMORY_LIMIT}.get(kind, Verdict.RUNTIME_ERROR)
        shown = kind not in ("forbidden", "judge", "signal")
        return Decision(verdict, Reason.RANK_FAILED, report=report,
                        details=(err["traceback"],) if shown else ())
    return None


def _first_refusal(raw: RawCase) -> Refusal | None:
    """The first call the switch refused (a fact of the switch, whatever the rank did next)."""
    refused = raw["trace"]["refused"]
    return min(refused, key=lambda r: (r["rank"], r["t"])) if refused else None


def _decide_finished(facts: CaseFacts) -> Decision:
    """The decision on a run in which every rank returned (see the module's docstring)."""
    raw = facts.raw
    decision = _judge_outputs(facts)
    if "race" in raw["trace"]:
        decision = Decision(Verdict.WRONG_ANSWER, Reason.RACE)
        facts.wrong = None  # the message is the race's, not the result's parts
    if decision.verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET):
        decision = _check_computes(facts) or decision
    if decision.verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET):
        over = _check_memory(facts)
        if over is not None and (decision.verdict is Verdict.ACCEPTED or
                                 over.verdict is Verdict.RUNTIME_ERROR):
            decision = over
    if decision.verdict is Verdict.ACCEPTED:
        decision = _check_traffic(facts) or decision
    # a finished, correct run; without input tensors (S = 0) there is nothing to scale
    if decision.verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET) and \
            values.input_bytes(facts.spec):
        decision = _check_model(facts, decision)
    if decision.verdict is Verdict.ACCEPTED:  # too_slow names the critical path first
        decision = _check_steps(facts) or decision
    return decision


def _judge_outputs(facts: CaseFacts) -> Decision:
    """Each rank's result against the expected one, then the bytes each rank sent."""
    sent, bounds = facts.sent, facts.bounds
    found = first_difference(facts.exercise, facts.spec, facts.raw, facts.expected)
    if isinstance(found, WrongAnswer):
        facts.wrong = found
        return Decision(Verdict.WRONG_ANSWER, Reason.WRONG_RESULT)
    if found is not None:
        return Decision(Verdict.RUNTIME_ERROR, Reason.NOT_FINISHED, report=found)
    over = [r for r in range(len(sent)) if sent[r] > bounds[r]]
    if over:
        worst = max(over, key=lambda r: sent[r] - bounds[r])
        return Decision(Verdict.OVER_BUDGET, Reason.OVER_BYTES, rank=worst)
    return Decision(Verdict.ACCEPTED, Reason.CORRECT,
                    rank=max(range(len(sent)), key=sent.__getitem__))


def _check_computes(facts: CaseFacts) -> Decision | None:
    """The grader's optional ``check_computes(case, inputs, computes)`` on a correct
    answer: whether the judge's functions were given what the algorithm gives them (the trace's
    ``computes``, each call's input known by its digest, in order; with the whole ``trace``
    when it takes it, what each send carried); wrong_answer when it says why: the result was
    not computed by the judge's functions from the data that travelled."""
    exercise, spec, trace = facts.exercise, facts.spec, facts.raw["trace"]
    check = getattr(exercise.grader, "check_computes", None)
    if check is None:
        return None
    more = {"trace": trace} if exercise.grader.computes_take_trace else {}
    why = check(spec["params"], spec["world_size"], spec["inputs"], trace.get("computes", []),
                **more)
    return Decision(Verdict.WRONG_ANSWER, Reason.COMPUTES, said=(why[0], why[1])) if why else None


def _check_memory(facts: CaseFacts) -> Decision | None:
    """The grader's optional ``memory(case, inputs, trace)`` on a correct answer: the
    peak of what the judge counts alive from its functions' calls (``peak``, ``bound``,
    ``what``, ``what_zh``; ``message``, ``message_zh`` when over), kept as the case's
    ``memory``; memory_limit when the peak is over the bound."""
    spec = facts.spec
    count = getattr(facts.exercise.grader, "memory", None)
    if count is None:
        return None
    try:
        memory = count(spec["params"], spec["world_size"], spec["inputs"], facts.raw["trace"])
    except FreedDead as exc:
        return Decision(Verdict.RUNTIME_ERROR, Reason.FREED_DEAD, said=(exc.en, exc.zh))
    facts.memory = MemoryUse(peak=memory["peak"], bound=memory["bound"], what=memory["what"],
                             what_zh=memory["what_zh"])
    if memory["peak"] <= memory["bound"]:
        return None
    return Decision(Verdict.MEMORY_LIMIT, Reason.OVER_MEMORY,
                    said=(memory["message"], memory["message_zh"]))


def _check_traffic(facts: CaseFacts) -> Decision | None:
    """The grader's optional ``check_traffic(case, calls)`` on a correct answer: a
    constraint on the calls themselves (bytes per link class, how many calls), over budget when
    it says why (``(en, zh)``), or the verdict it names (``(en, zh, "wrong_answer")``: too little
    traffic for the result to have been computed as the exercise says)."""
    spec = facts.spec
    check = getattr(facts.exercise.grader, "check_traffic", None)
    if check is None:
        return None
    why = check(spec["params"], spec["world_size"], graded_calls(facts.raw["trace"]))
    if not why:
        return None
    if len(why) > 2:
        return Decision(Verdict(why[2]), Reason.TRAFFIC_VERDICT, said=(why[0], why[1]))
    return Decision(Verdict.OVER_BUDGET, Reason.TRAFFIC, said=(why[0], why[1]))


def _check_model(facts: CaseFacts, decision: Decision) -> Decision:
    """The case's one replay at every modelled size (kept in ``facts.modelled``): judge_error
    when it lost what the switch saw, too_slow when a correct run is over the bound."""
    exercise, spec, raw = facts.exercise, facts.spec, facts.raw
    modelled = facts.modelled = model_case(
        raw["trace"], values.input_bytes(spec), exercise.model, case_name=spec["name"],
        params=spec["params"], sent=facts.sent)
    if not modelled.complete:
        log.error("%s, case %s: the replay is incomplete", exercise.id, spec["name"])
        return Decision(Verdict.JUDGE_ERROR, Reason.INCOMPLETE_MODEL)
    if decision.verdict is Verdict.ACCEPTED and modelled.too_slow:
        return Decision(Verdict.TOO_SLOW, Reason.TOO_SLOW)
    return decision


def _check_steps(facts: CaseFacts) -> Decision | None:
    """Over budget when a rank took more steps than the exercise's algorithm needs
    (``[messages]``, counted by ``model.steps``: segments in flight are one step, every empty
    message is one, since it carries data by being there)."""
    exercise, spec = facts.exercise, facts.spec
    if exercise.messages is None:
        return None
    limit = exercise.messages(spec["world_size"], spec["params"])
    steps = steps_per_rank(facts.raw["trace"])
    worst = max(range(len(steps)), key=steps.__getitem__)
    if steps[worst] <= limit:
        return None
    return Decision(Verdict.OVER_BUDGET, Reason.OVER_STEPS, rank=worst,
                    numbers=(limit, steps[worst]))
