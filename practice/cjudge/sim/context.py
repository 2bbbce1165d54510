"""Per-rank state (in a ContextVar) and the description of each communication call.

A ContextVar, not a global or a thread-local: ranks are threads in CPython and suspended stacks
(JSPI) in the browser, and each rank runs in its own ``contextvars.Context``.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from ..rank.learner import caller_line
from ..switch.port import Port


@dataclass
class RankContext:
    """Everything the simulated torch.distributed knows about the rank it runs on."""

    rank: int
    world: int
    port: Port  # this rank's door to the switch
    filename: str  # the learner's file name: frames from it give the line of a call
    allowed: frozenset[str]  # canonical ops the graded function may call (for messages)


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


def current_allowed() -> frozenset[str]:
    """The canonical ops the current rank's graded function may call."""
    return current().allowed


@dataclass
class Call:
    """A communication call as the switch records it: what was called, from which line."""

    api: str
    op: str
    line: int | None


def check(api: str, op: str) -> Call:
    """Describe a call (the switch decides whether it is allowed)."""
    return Call(api, op, caller_line(current().filename))
