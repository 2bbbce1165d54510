"""When a case ends: the one rule every runtime applies, and the one place that reads a job's
time limit.

A runtime (the simulated one's threads, the real one's processes, the browser's stacks or
workers) polls :func:`ended` while its ranks run. The case is over, in this order, when the
ranks printed too much (``output_limit``), flooded the switch (``trace_limit``), made a
reduction or a judge's function run past the deadline (``time_limit``), every rank finished
(no stop), the ranks can go no further (``deadlock``, or no stop when a rank failed and its peers
hang because of it), or the deadline passed (``time_limit``). The deadline counts from the
moment the ranks start (:func:`start_clock`); whoever waits for a case's report from outside
(the simulated runtime's parent, the server's worker, the page's watchdog) waits until
:func:`report_due`, a slack of its own past the limit. The switch's record says which limit its
ranks ran under, and a case whose ranks could not report gets its record from
:func:`unreported`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..contract.protocol import JobSpec, RankError, RankReport, RankState, RawCase, Stop
from .core import Switch, empty_trace


@dataclass(frozen=True)
class Ended:
    """A case is over: why its ranks were stopped early, or None when they all ended."""

    stop: Stop | None


def time_limit_s(job: JobSpec) -> float:
    """How long a case's ranks may run, counted from the moment they all started."""
    return job["time_limit_s"]


def clamped(job: JobSpec, most_s: float) -> JobSpec:
    """``job`` with its time limit cut to ``most_s`` (the diagnosis's own runs)."""
    return JobSpec(**{**job, "time_limit_s": min(time_limit_s(job), most_s)})


def start_clock(switch: Switch, job: JobSpec, now: float) -> float:
    """The ranks start at ``now``: the switch's deadline (a reduction stops there), returned;
    its record says which limit they ran under."""
    switch.limit_s = time_limit_s(job)
    switch.deadline = now + switch.limit_s
    return switch.deadline


def report_due(job: JobSpec, start: float, slack_s: float) -> float:
    """When a host that started a case at ``start`` stops waiting for its report."""
    return start + time_limit_s(job) + slack_s


def unreported(job: JobSpec, name: str, states: Sequence[RankState], stop: Stop | None,
               wall_ms: float | None, error: RankError | None = None, stdout: str = "") -> RawCase:
    """The record of ``job``'s case ``name`` whose ranks could not report (killed at a limit,
    dead, or cut at the judge's record limit): each rank in its state of ``states``, with
    ``error`` and no output, and the trace of a case in which nothing reached the switch, under
    ``job``'s time limit; ``wall_ms`` None: it ran until that limit passed."""
    ranks = [RankReport(rank=r, state=state, output=None, error=error)
             for r, state in enumerate(states)]
    trace = empty_trace(len(ranks))
    trace["limit_s"] = limit = time_limit_s(job)
    return RawCase(name=name, ranks=ranks, trace=trace, stdout=stdout, stop=stop,
                   wall_ms=limit * 1000 if wall_ms is None else wall_ms)


def ended(switch: Switch, now: float, printed_too_much: bool) -> Ended | None:
    """Whether the case is over at ``now`` and why (None: it goes on). The caller holds
    whatever lock guards ``switch``."""
    if printed_too_much:
        return Ended("output_limit")
    if switch.flooded:
        return Ended("trace_limit")
    if switch.late:  # a reduction or a judge's function would run past the deadline
        return Ended("time_limit")
    if len(switch.finished) == switch.world:
        return Ended(None)
    if (stuck := switch.stuck()) is not None:
        return Ended("deadlock" if stuck == "deadlock" else None)
    if switch.deadline is not None and now >= switch.deadline:
        return Ended("time_limit")
    return None
