"""A case's ``timeline`` in the verdict JSON, typed: what :mod:`.timeline` and
:mod:`.buffers` write and the web app's trace view, the CLI's ``--trace``/``--svg`` and the
Perfetto export draw."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class LaneRow(TypedDict):
    """One rank's lane: its state when the case ended, its last step and modelled end."""

    rank: int
    state: str
    end_step: int
    end_t: float | None  # ns; None: it waits for a request the model never completes


class MessageRow(TypedDict):
    """A matched message: its ends, lines, step and modelled span (ns)."""

    id: int
    src: int
    dst: int
    bytes: int
    tag: int
    line: int | None  # the send's line
    recv_line: int | None
    step: int
    t0: float | None
    t1: float | None
    group: NotRequired[int]  # a group other than the world
    chunk: NotRequired[int]  # the chunk it carries, where the grader can read it
    holds: NotRequired[list[int]]  # the ranks whose contributions that chunk sums


class CollectiveRow(TypedDict):
    """A built-in collective call: its members, lines, step and modelled span (ns)."""

    id: int
    kind: str
    ranks: list[int]
    bytes: list[int]
    root: int | None
    line: int | None  # the first member's line the trace knows
    lines: list[int | None]  # each member's
    step: int
    t0: float | None
    t1: float | None


class WaitRow(TypedDict):
    """A wait that took time: the rank's step and modelled clock before and after it."""

    rank: int
    s0: int
    s1: int | None  # None: it never ended
    t0: float | None
    t1: float | None
    line: int | None


class PendingRow(TypedDict):
    """A request posted and never completed."""

    rank: int
    kind: str
    peer: int | None
    tag: int
    bytes: int
    line: int | None
    step: int
    t: float | None


class DeadlockRow(TypedDict):
    """A rank of the deadlock's cycle and the rank it waits on."""

    rank: int
    on: int
    kind: str | None
    line: int | None
    step: int


class CriticalHop(TypedDict):
    """A transfer on the critical path (a collective names the rank that posted last)."""

    kind: str  # "message" or "collective"
    id: int
    rank: NotRequired[int]


class WrongMark(TypedDict):
    """A wrong answer's first wrong element, and the last message its rank received."""

    rank: int
    index: int
    chunk: int | None
    last_recv: int | None


class RefusedRow(TypedDict):
    """A call the exercise refused."""

    rank: int
    kind: str
    line: int | None


class BufferUpdate(TypedDict):
    """What a receiver's chunk holds once a step's messages arrived, and how it took them."""

    step: int
    rank: int
    chunk: int
    holds: list[int]
    op: NotRequired[str]  # "add" or "copy"


class Buffers(TypedDict):
    """Each receiver's chunks, step by step, where the grader can read its messages."""

    chunks: int
    mode: str  # "reduce" or "gather"
    updates: list[BufferUpdate]


class TimelineJSON(TypedDict):
    """What the trace view draws of one case; a view that failed has only ``version`` and
    ``error`` (the verdict stands)."""

    version: int
    error: NotRequired[str]
    world_size: NotRequired[int]
    time_unit: NotRequired[str]
    topology: NotRequired[str]
    size: NotRequired[int]  # the modelled S the times are at
    run_size: NotRequired[int]
    scale: NotRequired[float]
    modelled: NotRequired[bool]
    steps: NotRequired[int]
    end_t: NotRequired[float | None]
    groups: NotRequired[list[list[int]]]
    lanes: NotRequired[list[LaneRow]]
    messages: NotRequired[list[MessageRow]]
    collectives: NotRequired[list[CollectiveRow]]
    waits: NotRequired[list[WaitRow]]
    pending: NotRequired[list[PendingRow]]
    deadlock: NotRequired[list[DeadlockRow]]
    critical: NotRequired[list[CriticalHop]]
    too_slow: NotRequired[bool]
    wrong: NotRequired[WrongMark | None]
    cut: NotRequired[dict[str, int] | bool]  # how many there were, of those cut; else false
    refused: NotRequired[list[RefusedRow]]
    buffers: NotRequired[Buffers]
