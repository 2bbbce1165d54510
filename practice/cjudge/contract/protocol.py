"""The data that crosses between the trusted grader and an (untrusted) runtime.

The trusted side turns an exercise and a seed into :class:`CaseSpec` s (inputs included, no
expected values), a runtime runs the learner's code on every rank of one case and answers a
:class:`RawCase`; the trusted side grades it. Everything here is plain JSON so that it can cross
a sandbox boundary or the JavaScript/Python boundary in the browser unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ..switch.trace import SwitchTrace

#: what a case compares: the graded call's first argument afterwards, or what it returned
Output = Literal["inplace", "return"]
#: how a rank failed: an exception, a forbidden call, out of memory, or a signal; or a limit of
#: the judge stopped it ("judge": e.g. a result larger than the judge's channel carries), which
#: is never the learner's fault
ErrorKind = Literal["exception", "forbidden", "memory", "signal", "judge"]

def bilingual(kind: type[Exception], en: str, zh: str | None) -> Exception:
    """A ``kind`` exception raised to the learner with the judge's message ``en``, carrying its
    Chinese twin ``zh`` (a rank reports it as ``RankError.message_zh``)."""
    exc = kind(en)
    exc.zh = zh  # type: ignore[attr-defined]  # read back by ``learner.learner_error``
    return exc


RankState = Literal["starting", "running", "blocked", "returned", "failed", "killed"]
Stop = Literal["deadlock", "time_limit", "output_limit", "memory_limit", "trace_limit"]
#: bytes a sandbox's result channel carries for one job's records (the server's
#: ``result_limit_bytes`` by default); the room of the cases' results comes on top of them
#: (``values.result_budget``)
RESULT_BYTES = 16 << 20


class TensorData(TypedDict):
    """A tensor as plain data: shape, dtype name ("float32", "float64", "int64") and flat values."""

    shape: list[int]
    dtype: str
    data: list[float] | list[int]
    #: a rank's case input only: the graded call's arguments after the tensor, in order (the
    #: case parameters that exercise.toml's ``arguments`` names, e.g. a root)
    args: NotRequired[list[int | float | str]]


class CaseSpec(TypedDict):
    """One case as a runtime needs it: who runs, with which inputs, under which rules."""

    name: str
    world_size: int
    sample: bool
    params: dict[str, int | str]
    inputs: list[TensorData]  # one per rank
    #: the dtype whose width a narrower floating-point payload is charged at (absent: as sent)
    charge_dtype: NotRequired[str]


class JobSpec(TypedDict):
    """What a runtime needs besides the case: the learner's code and the exercise's rules."""

    function: str  # the graded function's name, e.g. "ring_all_reduce"
    output: Output  # what to compare: the argument after the call, or the return
    allowed: list[str]  # canonical ops allowed inside the graded function
    code: str
    filename: str  # the learner's file name, as shown in tracebacks
    time_limit_s: float
    output_limit_bytes: int
    #: bytes each rank may allocate past what it holds once its group exists (the real
    #: runtime sets it per case, scaled with the case's inputs; absent: the default)
    memory_headroom: NotRequired[int]


class TraceEvent(TypedDict):
    """One communication call made inside the graded function, as the grader counts it (derived
    from the switch's trace by ``switch.accounting.graded_calls``)."""

    rank: int
    seq: int
    op: str  # canonical op (see primitives.py)
    peer: int | None  # the other rank for p2p, the root for rooted collectives
    bytes: int  # bytes this rank sends for the call (primitives.bytes_sent)
    count: int  # elements in the tensor the call is about
    dtype: str
    line: int | None  # the learner's line that made the call
    api: str  # what the learner called, as far as it is known (e.g. "isend", "pg.send")


class RankError(TypedDict):
    """An exception raised on one rank, with the learner's own frames only."""

    kind: ErrorKind
    type: str
    message: str
    traceback: str
    line: int | None
    op: NotRequired[str]  # for "forbidden": the canonical op refused
    #: the message in Chinese, when the judge wrote it (a switch's refusal, a missing function)
    message_zh: NotRequired[str]


class RankReport(TypedDict):
    """How one rank ended."""

    rank: int
    state: RankState
    output: TensorData | None
    error: RankError | None
    waiting: NotRequired[str | None]  # canonical op it was blocked in, if blocked at the stop


#: the classes of plain JSON's numbers and null: no text to make valid, nothing to walk into
_NO_TEXT = frozenset({int, float, bool, type(None)})


def valid_text(value: Any) -> Any:
    """``value`` (plain JSON, e.g. a :class:`RawCase`) with every string made valid UTF-8: a lone
    surrogate, which no UTF-8 text holds, becomes its escape (``\\ud800``). The elements of a
    tensor's ``data`` are numbers and are not looked at.

    A case's trace holds tens of thousands of numbers: they are passed over where they stand,
    without a call each."""
    if isinstance(value, str):
        return value if value.isascii() else value.encode("utf-8", "backslashreplace").decode()
    if isinstance(value, list):
        return [v if v.__class__ in _NO_TEXT else valid_text(v) for v in value]
    if isinstance(value, dict):
        tensor = "shape" in value
        return {k if k.__class__ is str and k.isascii() else valid_text(k):
                v if v.__class__ in _NO_TEXT or tensor and k == "data" else valid_text(v)
                for k, v in value.items()}
    return value


class RawCase(TypedDict):
    """A runtime's answer for one case: facts only, no judgement."""

    name: str
    ranks: list[RankReport]
    trace: SwitchTrace  # the switch's record of every communication
    stdout: str  # the ranks' output, bounded, each line prefixed with its rank
    stop: Stop | None  # why the runtime stopped the ranks early, if it did
    wall_ms: float
