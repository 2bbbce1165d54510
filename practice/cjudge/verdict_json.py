"""The verdict JSON: the one contract the CLI's ``--json``, the server's API and the browser share.

:class:`VerdictJSON` is a submission's verdict, :class:`CaseResult` one graded case of it. The
kernel builds them (``cjudge.grading``); the server's API schemas are made from these
definitions (``server/api/schemas.py``), and the web app's JSDoc typedef
(``web/src/app/verdict.js``) names the same fields. Plain TypedDicts: the kernel also runs in
Pyodide, without pydantic.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .protocol import TensorData, TraceEvent
from .switch.explain import DeadlockFacts


class MemoryUse(TypedDict):
    """What a grader's ``memory`` hook counted alive at the peak, and its bound."""

    peak: int | float
    bound: int | float
    what: str
    what_zh: str


class Sample(TypedDict):
    """A sample case in full: what every rank was given, returned, and should have returned."""

    inputs: list[TensorData]
    outputs: list[Any]  # per rank: its result (a tensor, a number, nested lists), None if none
    expected: list[Any]


class CaseResult(TypedDict):
    """One graded case (DESIGN's "Verdict JSON")."""

    name: str
    world_size: int
    verdict: str  # a ``cjudge.verdicts.Verdict`` code
    message: str
    message_zh: str
    details: list[str]  # a failing rank's traceback
    bytes_sent: list[int]  # per rank, inside the graded call
    bytes_bound: int  # the busiest rank's bound
    bytes_bounds: NotRequired[list[int]]  # per rank, when the ranks' bounds differ
    messages_sent: list[int]  # per rank
    wall_ms: float
    trace: list[TraceEvent]  # the graded calls
    trace_truncated: NotRequired[bool]  # the server kept the first calls only
    deadlock: NotRequired[DeadlockFacts]
    memory: NotRequired[MemoryUse]
    model: NotRequired[dict[str, Any]]  # topology, modelled sizes and times, bound, floor
    sample: NotRequired[Sample]
    timeline: NotRequired[dict[str, Any]]  # the trace view's data (``cjudge.view.timeline``)
    smallest: NotRequired[CaseResult]  # the smallest case that fails the same way


class VerdictJSON(TypedDict):
    """A submission's verdict: the first failing case's, and every case graded."""

    exercise: str
    verdict: str  # a ``cjudge.verdicts.Verdict`` code
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
