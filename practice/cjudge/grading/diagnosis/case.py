"""A wrong answer's cause from its run: a request never waited, else the first message or
collective call where the run departs from the reference's on the same inputs, else that every
exchange matched; the stock guess from one element is dropped when the evidence contradicts it
or names the cause. Over a byte bound or after a runtime error, where the run left the
reference's. Each is part of the case's message, which grading writes once from it
(:func:`explain`)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from ...contract.protocol import CaseSpec, JobSpec, RawCase
from ...contract.units import plural
from ...contract.verdicts import Verdict
from ...switch.trace import SwitchTrace
from ..budget import against_reference
from ..facts import CaseFacts
from . import calls, divergence, given
from .generic import generic_spec, worth_a_second_draw
from .matched import matched
from .returns import returned_from, returned_instead
from .said import Cause, algorithm
from .sends import sends
from .values import graded_dtype
from .waits import never_waited

RunCase = Callable[[JobSpec, CaseSpec], RawCase]
#: a message, (English, Chinese)
Message = tuple[str, str]
log = logging.getLogger(__name__)


class Runs(NamedTuple):
    """What the diagnosis may run: the reference on a case (trusted code), the learner's
    ``job`` again on a generic draw (where it may run), and that job."""

    reference: RunCase | None = None
    rerun: RunCase | None = None
    job: JobSpec | None = None


Explainer = Callable[[CaseFacts, Message, Runs], Message]


def _total(explainer: Explainer) -> Explainer:
    """``explainer`` made total: a diagnosis that fails is logged and dropped (the message stays
    as grading wrote it), never the verdict."""
    @functools.wraps(explainer)
    def total(facts: CaseFacts, message: Message, runs: Runs) -> Message:
        try:
            return explainer(facts, message, runs)
        except Exception:  # noqa: BLE001 - a diagnosis is dropped, never the verdict
            log.exception("%s, case %s: dropped a diagnosis that failed", facts.exercise.id,
                          facts.spec["name"])
            return message
    return total


def reference_run(exercise: Any, spec: CaseSpec, run: RunCase) -> RawCase | None:
    """The reference's run on ``spec``; None when there is no reference (a published copy) or
    it did not finish cleanly. It gets the exercise's own time limit, the one the learner's run
    finished within: a shorter one would drop the evidence, and change the message, only on a
    loaded machine, where the reference, which takes milliseconds, is slowed past it."""
    path = exercise.path / "solution.py"
    if not path.is_file():
        return None
    job = exercise.job_spec(path.read_text(encoding="utf-8"), "solution.py")
    raw = run(job, spec)
    if raw["stop"] is not None or any(r["state"] != "returned" for r in raw["ranks"]):
        return None
    return raw


def _then(message: Message, en: str, zh: str) -> Message:
    """``message`` followed by one more sentence, in both languages."""
    first, first_zh = message
    first = first if first.endswith((".", "?", "!")) else f"{first}."
    first_zh = first_zh if first_zh.endswith(("。", "？", "！")) else f"{first_zh}。"
    return f"{first} {en}", f"{first_zh}{zh}"


class Compare(Protocol):
    """Where a run departs from the reference's (:func:`.divergence.explain`,
    :func:`.calls.explain`): its payload or input recognised as another value unless
    ``recognise`` is False."""

    def __call__(self, exercise: Any, spec: CaseSpec, learner: SwitchTrace,
                 reference: SwitchTrace, recognise: bool = True) -> Cause | None: ...


class Found(NamedTuple):
    """The evidence's cause of a wrong answer, and what becomes of the grader's hint (its
    reading of the first wrong element): it stays in place (``keep``) where every exchange
    matched and the result does not contradict it; it follows the cause (``after``) where the
    run departs only by its values, so that the hint says what the departure did to the result."""

    cause: tuple[str, str]
    keep: bool = False
    after: bool = False


def _on_generic_values(exercise: Any, spec: CaseSpec, raw: RawCase, ref: RawCase, cause: Cause,
                       compare: Compare, runs: Runs) -> Cause | None:
    """``cause`` (what ``compare`` found on the case) as a draw without coincidences confirms it
    (:mod:`.generic`): unchanged where the generic draw departs too and is recognised alike;
    without its recognition of the payload or input (a chunk, a piece, another call's input)
    where the generic draw's is not recognised, or only by what holds on any draw (a
    coincidence of the case's values); None where the generic draw does not depart at all (the
    case's values made the departure). Unchanged when the learner's code cannot be rerun."""
    run, rerun, job = runs
    if run is None or rerun is None or job is None or not worth_a_second_draw(exercise, spec):
        return cause
    drawn = generic_spec(exercise, spec)
    ref_drawn = reference_run(exercise, drawn, run)
    mine = rerun(job, drawn)
    if ref_drawn is None or mine["stop"] is not None:
        return cause
    again = compare(exercise, drawn, mine["trace"], ref_drawn["trace"])
    if again is None:
        return None
    if cause.named and (not again.named or again == compare(
            exercise, drawn, mine["trace"], ref_drawn["trace"], recognise=False)):
        # the generic draw recognises nothing of the payload or input, or only what holds on
        # any draw (a scale, a missed wait): the case's recognition is its values' coincidence
        return compare(exercise, spec, raw["trace"], ref["trace"], recognise=False)
    return cause


def _cause(exercise: Any, spec: CaseSpec, raw: RawCase, runs: Runs) -> Found | None:
    """The evidence's cause; the grader's hint is dropped where the evidence names the fault
    itself (a new tensor returned where the argument is graded, a missed wait, a repeated
    send, another slice: :class:`~.said.Cause`), or where a call of a judge's function was
    given something else before its rank's first departing send (:func:`.given.upstream`). A
    departure is blamed only where a generic draw confirms it (:func:`_on_generic_values`)."""
    run, _, job = runs
    instead = returned_instead(exercise, job, spec, raw) if job is not None else None
    if instead is not None:
        return Found((instead.en, instead.zh))
    missed = never_waited(raw["trace"])
    if missed is not None:
        return Found(missed)
    ref = reference_run(exercise, spec, run) if run is not None else None
    if ref is None:
        return None
    # what the judge's functions were given: the suspect unless an exchange says more, the
    # cause where the first departing send came after it on its rank (it sent what it made)
    handed = given.explain(exercise, spec, raw["trace"], ref["trace"])
    if handed is not None and given.upstream(raw["trace"], ref["trace"], graded_dtype(spec)):
        return Found((handed.en, handed.zh))
    for compare in (divergence.explain, calls.explain):
        found = compare(exercise, spec, raw["trace"], ref["trace"])
        if found is not None:
            cause = _on_generic_values(exercise, spec, raw, ref, found, compare, runs)
            if cause is None:  # this draw's values only: not blamed, nor "every call matched"
                return None
            if handed is not None and not cause.named:
                return Found((handed.en, handed.zh))
            return Found((cause.en, cause.zh), keep=not cause.named, after=True)
    if handed is not None:
        return Found((handed.en, handed.zh))
    if any(sends(ref["trace"])):
        return Found(*matched(exercise, spec, raw, collective=False))
    if any(calls.calls(ref["trace"])):
        return Found(*matched(exercise, spec, raw, collective=True))
    return None


@_total
def _explain_bytes(facts: CaseFacts, message: Message, runs: Runs) -> Message:
    """Over the byte bound, where the grader does not say what the receivers needed: where the
    rank sent more than the reference's same rank on the same inputs, after ``message``."""
    exercise, sent, bounds, run = facts.exercise, facts.sent, facts.bounds, runs.reference
    if run is None or getattr(exercise.grader, "needs", None) is not None:
        return message
    over = [r for r, b in enumerate(sent) if b > bounds[r]]
    if not over:
        return message  # over a bound on messages, said by the grader
    ref = reference_run(exercise, facts.spec, run)
    algo = algorithm(exercise)
    worst = max(over, key=lambda r: sent[r] - bounds[r])
    why = against_reference(facts.raw["trace"], ref["trace"], worst, algo) if ref else None
    return message if why is None else _then(message, f"{why[0][0].upper()}{why[0][1:]}", why[1])


@_total
def _explain_error(facts: CaseFacts, message: Message, runs: Runs) -> Message:
    """A runtime error after the run already left the reference's (the error is where it shows,
    the departure where it began): that departure, after ``message``."""
    exercise, spec, raw, run = facts.exercise, facts.spec, facts.raw, runs.reference
    ref = reference_run(exercise, spec, run) if run is not None else None
    if ref is None:
        return message
    dtype = graded_dtype(spec)
    sent = divergence.first_departure(raw["trace"], ref["trace"], dtype)
    # a rank that stopped sending stopped because of the error: no departure before it
    cause = divergence.describe(exercise, spec, raw["trace"], ref["trace"], sent) \
        if sent is not None and sent[0].values is not None else None
    departed = calls.first_departure(raw["trace"], ref["trace"], dtype)
    at_error = False
    if cause is None and departed is not None and departed[0] is not None:
        # not the failing call on this rank; at the failing line on another (split sizes the
        # switch recorded)
        cause = calls.describe(exercise, spec, raw["trace"], ref["trace"], departed)
        at_error = departed[0].line is not None and departed[0].line in _error_lines(raw)
    then, then_zh = ("Cause: ", "原因：") if at_error else ("Before it, ", "在此之前，")
    if cause is None:
        cause, then, then_zh = _matched_until(exercise, raw, ref), "", ""
    return message if cause is None else _then(message, f"{then}{cause[0]}",
                                                  f"{then_zh}{cause[1]}")


def _matched_until(exercise: Any, raw: RawCase, ref: RawCase) -> Cause | None:
    """"Until then, rank 0's 4 sends matched the ring's, step for step": the failing rank's
    sends and collective calls before its error, when each is the reference's at its place (the
    fault is at the error, not before it); None otherwise."""
    rank = next((r["rank"] for r in raw["ranks"] if r["error"]), None)
    if rank is None:
        return None
    mine, theirs = sends(raw["trace"])[rank], sends(ref["trace"])[rank]
    made, wanted = calls.calls(raw["trace"])[rank], calls.calls(ref["trace"])[rank]
    if not (mine or made) or len(mine) > len(theirs) or len(made) > len(wanted) or any(
            a.values is None or (a.dst, a.values) != (b.dst, b.values)
            for a, b in zip(mine, theirs, strict=False)) or any(
            calls.differs(a, b) for a, b in zip(made, wanted, strict=False)):
        return None
    algo, algo_zh = algorithm(exercise)
    did = " and ".join(plural(len(x), what) for x, what in
                       ((mine, "send"), (made, "collective call")) if x)
    did_zh = "和".join(f"{len(x)} 次{what}" for x, what in ((mine, "发送"), (made, "集合通信"))
                      if x)
    return Cause(f"Until then, rank {rank}'s {did} matched {algo}'s, step for step",
                 f"在此之前，rank {rank} 的 {did_zh}都与{algo_zh}逐步一致")


def _error_lines(raw: RawCase) -> set[int]:
    """The learner's lines at which a rank raised."""
    return {r["error"]["line"] for r in raw["ranks"] if r["error"] and r["error"]["line"]}


@_total
def _explain_wrong(facts: CaseFacts, message: Message, runs: Runs) -> Message:
    """A wrong answer's cause from the evidence, in place of the guesses from its result
    (``facts.wrong``, the parts grading wrote ``message`` from, when it did); for a wrong output
    (not a race) that the job's function returned, the line it came from."""
    spec, answer, job = facts.spec, facts.wrong, runs.job
    found = _cause(facts.exercise, spec, facts.raw, runs)
    if found is not None:
        # the evidence names the cause: what the chunk pattern suggests goes, and the grader's
        # hint unless the evidence leaves it standing (:class:`Found`)
        en, zh = answer.message(hint=found.keep and not found.after, guess=False) \
            if answer is not None else message
        hint = answer.hint if answer is not None and found.keep and found.after else None
        message = (f"{en}. Cause: {found.cause[0]}" + (f". Hint: {hint[0]}" if hint else ""),
                   f"{zh}。原因：{found.cause[1]}" + (f"。提示：{hint[1]}" if hint else ""))
    said = returned_from(job, spec) if answer is not None and job is not None else None
    return message if said is None else _then(message, said.en, said.zh)


#: the diagnosis of each verdict that has one
EXPLAINERS: dict[Verdict, Explainer] = {Verdict.WRONG_ANSWER: _explain_wrong,
                                        Verdict.OVER_BUDGET: _explain_bytes,
                                        Verdict.RUNTIME_ERROR: _explain_error}


def explain(facts: CaseFacts, verdict: Verdict, message: Message, runs: Runs) -> Message:
    """The case's message with the evidence's cause in a wrong answer's, an over_budget's or a
    runtime error's ``message`` (as grading wrote it for ``verdict``), and for a wrong
    returned value where the job's function returned it; total: a diagnosis that fails is
    logged and dropped. ``runs.reference`` runs the reference (trusted code); ``runs.rerun``,
    where the learner's code may run again, runs ``runs.job`` on a generic draw to confirm a
    departure."""
    explainer = EXPLAINERS.get(verdict)
    return message if explainer is None else explainer(facts, message, runs)
