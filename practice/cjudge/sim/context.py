"""Per-rank state (in a ContextVar) and the rules: check, then record, each communication call.

A ContextVar, not a global or a thread-local: ranks are threads in CPython and suspended stacks
(JSPI) in the browser, and each rank runs in its own ``contextvars.Context``.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from ..learner import ForbiddenPrimitive, caller_line
from ..primitives import bytes_sent
from ..protocol import TraceEvent
from .transport import Transport


@dataclass
class Rules:
    """What the graded function may call: canonical ops (see primitives.CANONICAL)."""

    allowed: frozenset[str]
    function: str


@dataclass
class RankContext:
    """Everything the simulated torch.distributed knows about the rank it runs on."""

    rank: int
    world: int
    transport: Transport
    filename: str  # the learner's file name: frames from it give the line of a call
    events: list[TraceEvent]  # where trace events go (shared by the ranks of a case)
    rules: Rules | None = None  # set only while the graded function runs
    seq: int = 0
    collective_seq: dict[int, int] = field(default_factory=dict)  # group id -> calls so far
    groups_made: int = 0


_CURRENT: ContextVar[RankContext | None] = ContextVar("sim_rank", default=None)


def enter(ctx: RankContext) -> None:
    """Make ``ctx`` the current rank of this context (call inside the rank's own Context)."""
    _CURRENT.set(ctx)


def current() -> RankContext:
    """The current rank, or the error torch gives when there is no process group."""
    ctx = _CURRENT.get()
    if ctx is None:
        raise RuntimeError(
            "Default process group has not been initialized, please make sure to call "
            "init_process_group."
        )
    return ctx


def in_rank() -> bool:
    """Whether this code runs on a simulated rank."""
    return _CURRENT.get() is not None


@dataclass
class Call:
    """A communication call that passed the rules and will be recorded."""

    api: str
    op: str
    line: int | None


def check(api: str, op: str) -> Call | None:
    """Refuse ``op`` if the rules forbid it; None when no rules apply (outside the graded call)."""
    ctx = current()
    if ctx.rules is None:
        return None
    line = caller_line(ctx.filename)
    if op not in ctx.rules.allowed:
        raise ForbiddenPrimitive(op, ctx.rules.allowed, api)
    return Call(api, op, line)


def record(call: Call | None, *, peer: int | None, nbytes: int, count: int, dtype: str,
           group_rank: int, group_size: int, root: int | None = None,
           split_bytes: list[int] | None = None) -> None:
    """Append the trace event of an accepted call; ``root`` is group-local."""
    if call is None:
        return
    ctx = current()
    sent = bytes_sent(call.op, group_size, group_rank, nbytes, root, split_bytes)
    ctx.events.append(TraceEvent(
        rank=ctx.rank, seq=ctx.seq, op=call.op, peer=peer, bytes=sent, count=count,
        dtype=dtype, line=call.line, api=call.api,
    ))
    ctx.seq += 1
