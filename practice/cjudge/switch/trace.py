"""The switch's record of a case: what every rank posted, what matched, who waited how long.

Plain JSON (TypedDicts) so that it crosses a sandbox or the JavaScript boundary unchanged. Times
``t`` are the switch's own logical clock: an integer that grows by one with every action the
switch takes (a post, a match, a wait's begin or end), the same on every runtime for the same
interleaving. A rank's *program order* is its requests (by ``posted``) and its waits (by
``begin``) merged by time; the cost model (``cjudge.model``) replays exactly that.
"""

from __future__ import annotations

import base64
import binascii
from enum import IntEnum
from operator import itemgetter
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

from .reduce import DTYPES, values_of
from .symm import Race

#: "send"/"recv" for point-to-point, else a canonical collective (``primitives.CANONICAL``)
RequestKind = str


class Request(TypedDict):
    """One operation a rank posted (``isend``, ``irecv``, a collective; blocking calls too)."""

    id: int
    rank: int  # global rank that posted it
    kind: RequestKind
    group: int  # group id: 0 is the world, then ``new_group`` calls in order
    peer: int | None  # send: destination; recv: source (None: any source); rooted collective: root
    tag: int
    bytes: int  # send: payload; recv: the receiving tensor's capacity; collective: this rank's input
    sent: int  # bytes this rank sends for the call (``primitives.bytes_sent``): what is graded
    dtype: str
    line: int | None  # the learner's line that made the call (reported by the rank: display only)
    #: what the learner called, e.g. "isend", "ProcessGroup.allreduce"; a name torch gives the
    #: same call under another (``reduce_scatter_single``) is recorded as one (``ALIASES``)
    api: str
    graded: bool  # made inside the graded call (rules and byte accounting apply)
    posted: int  # switch time of the post
    completed: int | None  # switch time it completed (None: never)
    message: int | None  # p2p: the message id once matched
    collective: int | None  # collectives: the collective id once every member arrived
    #: all_to_all: the input's bytes for each member, group order (``input_split_sizes``, or
    #: the list's tensors): what a diagnosis compares with the reference's
    splits: NotRequired[list[int]]
    #: completed with an error that the rank's wait raised (True only: absent otherwise)
    failed: NotRequired[bool]
    #: a graded send: the index in ``computes`` of the sender's latest earlier call of a judge's
    #: function whose output (or one unit of it) is exactly this payload; absent if none
    carries: NotRequired[int]


class Message(TypedDict):
    """A matched point-to-point transfer."""

    id: int
    group: int
    src: int
    dst: int
    tag: int
    bytes: int  # payload bytes actually moved
    send: int  # request id of the send
    recv: int  # request id of the receive
    matched: int  # switch time both sides were posted (rendezvous)
    #: the payload, for graded messages while the case's record has room
    #: (``Limits.recorded_values``): what a grader's ``chunk_reader`` labels
    data: NotRequired[RecordedPayload]


class RecordedPayload(TypedDict):
    """A message's payload as the trace keeps it: its raw bytes in base64, which cross a
    sandbox's JSON channel several times faster than the same elements as JSON numbers."""

    dtype: str
    b64: str


def recorded(payload: bytes, dtype: str) -> RecordedPayload | None:
    """``payload`` as the trace keeps it; None for a dtype the judge cannot read back."""
    if dtype not in DTYPES:
        return None
    return RecordedPayload(dtype=dtype, b64=base64.b64encode(payload).decode("ascii"))


def recorded_bytes(data: Any) -> bytes | None:
    """A recorded payload's bytes; None for anything malformed (a trace read back from a
    sandbox is not trusted)."""
    if not isinstance(data, dict) or not isinstance(data.get("b64"), str):
        return None
    try:
        return base64.b64decode(data["b64"], validate=True)
    except (binascii.Error, ValueError):
        return None


def recorded_values(data: Any) -> list[float | int] | None:
    """The elements of a recorded payload; None for anything malformed."""
    raw = recorded_bytes(data)
    return None if raw is None else values_of(raw, str(data.get("dtype")))


class Collective(TypedDict):
    """One built-in collective call, performed by the switch once every member arrived."""

    id: int
    kind: str
    group: int
    ranks: list[int]  # members, global ranks in group order
    seq: int  # this collective's number among the group's collective calls (from 0)
    requests: list[int]  # each member's request id, in group order
    bytes: list[int]  # logical bytes each member sends (``primitives.bytes_sent``), group order
    size: list[int]  # each member's input bytes, group order
    root: int | None  # global rank of the root for rooted collectives
    op: str | None  # reduce op name for reductions ("sum", "max", ...)
    started: int  # switch time the last member arrived
    #: each member's input, group order, for a graded call while the case's record has room
    #: (``Limits.recorded_values``): what a diagnosis compares with the reference's run
    data: NotRequired[list[RecordedPayload]]


class Wait(TypedDict):
    """A rank blocked on one of its requests (``Work.wait`` or a blocking call)."""

    rank: int
    request: int
    begin: int
    end: int | None  # None: still waiting when the case stopped
    #: the learner's line that waits (``req.wait()``), where the runtime gave it: a blocking
    #: call's is its post's line, a request's ``wait()`` may be far from its post
    line: NotRequired[int]


class Refusal(TypedDict):
    """A call the switch refused because the exercise forbids it (``forbidden_primitive``)."""

    rank: int
    kind: str
    api: str
    line: int | None
    t: int


class Compute(TypedDict):
    """A call of a function the judge handed the rank (``switch.functions``), which the switch
    applied: the cost model charges the exercise's declared compute time ``units`` times at
    ``t``, in the rank's program order; graders read what each call was given (its input's
    digest, dtype and elements, and the message whose payload it was) and what it made."""

    rank: int
    name: str
    line: int | None
    t: int
    units: int  # calls' worth: ⌈elements / params["unit"]⌉, at least 1
    dtype: str
    elements: int  # of the (last) input tensor; a generator's: of the item it answered
    input: str  # ``functions.digest`` of the input's bytes (a pair's last tensor's)
    output: str  # the same of the output's
    inputs: NotRequired[list[str]]  # a function of two tensors: both digests, in order
    message: NotRequired[int]  # id of a graded message to this rank with exactly these bytes


class WaitEdge(TypedDict):
    """In a deadlock: ``rank`` waits on ``on`` (its receive's source, its send's destination, or
    a group member that has not made the collective call)."""

    rank: int
    on: int
    request: int


class SwitchTrace(TypedDict):
    """Everything the switch saw in one case."""

    world_size: int
    groups: list[list[int]]  # group id -> members (global ranks)
    requests: list[Request]
    messages: list[Message]
    collectives: list[Collective]
    waits: list[Wait]
    refused: list[Refusal]  # the first ``Limits.refusals`` refusals
    refused_more: NotRequired[int]  # refusals past those, counted only
    computes: NotRequired[list[Compute]]  # present when a rank called a judge's function
    deadlock: list[WaitEdge]  # empty unless the case ended in a deadlock
    #: the first two accesses of symmetric memory that no barrier ordered (``switch.symm``)
    race: NotRequired[Race]
    #: set when the run was stopped at a limit of the judge's record: its calls ("requests"),
    #: the size of the whole record ("record": the runner cut it), or the case's time, which a
    #: reduction or a judge's function would have passed ("time")
    limit: NotRequired[Literal["requests", "record", "time"]]
    #: the time limit the ranks ran under (the exercise's, or a diagnosis run's shorter one),
    #: present once their clock started or when the runtime reports a case that could not
    limit_s: NotRequired[float]


class StepKind(IntEnum):
    """What one step of a rank's program does; steps at one switch time go in this order."""

    POST = 0  # posts a graded request
    WAIT = 1  # waits for one
    COMPUTE = 2  # calls a judge's function (``Compute``)


class Step(NamedTuple):
    """One step of a rank's program, at switch time ``t``: a post of ``request`` or a wait for
    it (``wait``: its record), or a compute of ``units`` calls' worth (``request`` -1)."""

    t: int
    kind: StepKind
    request: int
    units: int = 0
    wait: Wait | None = None


#: a step's place in its program: by t, then kind, request and units (its first four fields)
_ORDER = itemgetter(0, 1, 2, 3)


def programs(trace: SwitchTrace, computes: bool = True) -> list[list[Step]]:
    """Per rank, its *program order* (see the module): its graded requests by ``posted``, its
    waits on them by ``begin`` and, with ``computes``, its graded calls of the judge's functions
    by ``t``. What the cost model replays and the trace view draws."""
    # each kind looked up once: an enum member's lookup is slow, and a trace has many steps
    posts, waits, computing = StepKind.POST, StepKind.WAIT, StepKind.COMPUTE
    graded = {r["id"] for r in trace["requests"] if r["graded"]}
    out: list[list[Step]] = [[] for _ in range(trace["world_size"])]
    for r in trace["requests"]:
        if r["graded"]:
            out[r["rank"]].append(Step(r["posted"], posts, r["id"]))
    for w in trace["waits"]:
        if w["request"] in graded:
            out[w["rank"]].append(Step(w["begin"], waits, w["request"], wait=w))
    for c in trace.get("computes", []) if computes else []:
        if c.get("graded", True):
            out[c["rank"]].append(Step(c["t"], computing, -1, c.get("units", 1)))
    for program in out:
        program.sort(key=_ORDER)
    return out
