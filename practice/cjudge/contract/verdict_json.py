"""The verdict JSON: the one contract the CLI's ``--json``, the server's API and the browser share.

:class:`VerdictJSON` is a submission's verdict, :class:`CaseResult` one graded case of it. The
kernel builds them (``cjudge.grading.grade``); the server's API schemas are made from these
definitions (``server/api/schemas.py``), and the web app's JSDoc typedef
(``web/src/app/verdict.js``) names the same fields. Plain TypedDicts: the kernel also runs in
Pyodide, without pydantic.

JSON has no NaN or infinity, and a learner's result may hold them: in the verdict JSON a
non-finite float is a :data:`NonFinite` string wherever a number may stand (:data:`Real`), and
every writer of a verdict goes through :func:`dumps` (or :func:`json_safe`, for a writer of its
own), which refuses any other non-finite value.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal, NotRequired, TypedDict

from ..model.schema import ModelJSON
from ..switch.explain import DeadlockFacts
from ..view.schema import TimelineJSON
from .protocol import TraceEvent
from .verdicts import Verdict

#: how NaN, +∞ and −∞ travel in the verdict JSON
NonFinite = Literal["nan", "inf", "-inf"]
#: a float of the verdict JSON: a number, or a non-finite one's :data:`NonFinite` string
Real = float | NonFinite


class MemoryUse(TypedDict):
    """What a grader's ``memory`` hook counted alive at the peak, and its bound."""

    peak: int | Real
    bound: int | Real
    what: str
    what_zh: str


class Sample(TypedDict):
    """A sample case in full: what every rank was given, returned, and should have returned."""

    inputs: list[Any]  # per rank: its case input (a tensor, or a call's arguments)
    #: per rank: its result (a tensor, a number, nested lists), None if none; any float in it,
    #: a tensor's elements included, may be a :data:`NonFinite` string
    outputs: list[Any]
    expected: list[Any]


class CaseResult(TypedDict):
    """One graded case (DESIGN's "Verdict JSON")."""

    name: str
    world_size: int
    verdict: Verdict
    message: str
    message_zh: str
    details: list[str]  # a failing rank's traceback
    bytes_sent: list[int]  # per rank, inside the graded call
    bytes_bound: int  # the busiest rank's bound
    bytes_bounds: NotRequired[list[int]]  # per rank, when the ranks' bounds differ
    messages_sent: list[int]  # per rank
    wall_ms: Real
    trace: list[TraceEvent]  # the graded calls
    trace_truncated: NotRequired[bool]  # the server kept the first calls only
    deadlock: NotRequired[DeadlockFacts]
    memory: NotRequired[MemoryUse]
    model: NotRequired[ModelJSON]  # topology, modelled sizes and times, bound, floor
    sample: NotRequired[Sample]
    timeline: NotRequired[TimelineJSON]  # the trace view's data (``cjudge.view.timeline``)
    smallest: NotRequired[CaseResult]  # the smallest case that fails the same way


class VerdictJSON(TypedDict):
    """A submission's verdict: the first failing case's, and every case graded."""

    exercise: str
    verdict: Verdict
    message: str
    message_zh: str
    runtime: str  # "sim", "torch", "torch-gloo", ...
    cases: list[CaseResult]
    skipped: NotRequired[list[str]]  # cases not run after the first failure
    stdout: str
    judge_version: str
    seed: int  # the hidden cases' inputs follow from it (the server shows it to staff only)
    exercise_hash: str
    line: NotRequired[int | None]  # a compile error's place
    column: NotRequired[int | None]
    unavailable: NotRequired[bool]  # the server could not judge it now


def json_safe(value: Any) -> Any:
    """``value`` (a verdict, a case, a sample: dicts, lists and tuples of plain values) with each
    non-finite float as its :data:`NonFinite` string, tuples as lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``value`` as strict JSON text (``json.dumps``'s ``options``), non-finite floats encoded
    by :func:`json_safe`; a NaN that is left (an object's ``default`` made it) is a ValueError.
    Most verdicts hold none: they are written at once, without the walk (which costs as much)."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:
        return json.dumps(json_safe(value), allow_nan=False, **options)
