"""A case's modelled schedule, from the switch's trace and one replay at one size: each
transfer's step in the run's dependency order, each rank's modelled clock through its program,
and the critical path (:mod:`.critical`).

Steps: a rank's *level* is the highest step it has waited for; a transfer's step is one more
than the levels of the ranks that posted it, at the time they posted it. A ring of n ranks has
steps 1 … 2(n−1), whatever the interleaving. Only the graded call's traffic is scheduled (what
the bytes and the model count).

A case's facts hold its one schedule (``CaseFacts.schedule``): grading reads its critical path
to say why a too_slow case is slow (:mod:`.slow`), and the trace view draws all of it
(``cjudge.view.timeline``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ..switch.trace import (
    Collective,
    Message,
    Request,
    Step,
    StepKind,
    SwitchTrace,
    programs,
)
from .case import ModelSpec
from .critical import Clocks, Hop, critical_path
from .replay import Replay, Spans, replay
from .topology import Topology


def ns(seconds: float | None) -> float | None:
    """A modelled time in ns, to a tenth (as the view shows it)."""
    return None if seconds is None else round(seconds * 1e9, 1)


class RankWait(NamedTuple):
    """One wait of a rank's program on the modelled clock: its step and clock before it and,
    when it ended, after it."""

    rank: int
    s0: int
    s1: int | None  # None: it never ended
    t0: float | None  # s; None: the rank's clock stopped at an earlier wait
    t1: float | None
    line: int | None


@dataclass(frozen=True)
class Schedule:
    """One case's schedule at ``size`` on ``topo`` (see the module's docstring)."""

    topo: Topology
    size: int
    scale: float
    #: False: the case's ranks do not fit the topology, and nothing has a modelled time
    modelled: bool
    graded: dict[int, Request]
    messages: list[Message]  # the graded call's: both ends graded
    collectives: list[Collective]
    spans: Spans
    step: dict[int, int]  # request id -> the step of the transfer it took part in
    at_post: dict[int, int]  # request id -> its rank's level when posted
    level: list[int]  # each rank's final level
    clocks: Clocks
    waits: list[RankWait]
    critical: list[Hop]

    @property
    def alone(self) -> bool:
        """Whether no two messages are ever in flight together in modelled time."""
        spans = sorted((t0, t1) for m in self.messages
                       if (span := self.spans.get(("m", m["id"]))) is not None
                       and (t0 := ns(span[0])) is not None and (t1 := ns(span[1])) is not None)
        return bool(spans) and all(start >= before[1] - 1e-6 * max(before[1], 1.0)
                                   for before, (start, _) in zip(spans, spans[1:], strict=False))


def case_schedule(trace: SwitchTrace, spec: ModelSpec, run_size: int, size: int,
                  params: Mapping[str, int | str] | None = None,
                  drawn: Replay | None = None) -> Schedule:
    """The schedule of a case's ``trace`` at modelled ``size`` (``run_size``: one rank's input
    bytes in the run; ``params``: the case's, which may place its ranks on nodes and set the
    compute charge); ``drawn``: the case's replay at ``size`` with its spans, when grading made
    it (else the trace is replayed here, when its ranks fit the topology)."""
    world = trace["world_size"]
    scale = size / run_size if run_size >= 1 else 1.0
    topo = spec.topology_for(world, params)
    modelled = world <= topo.gpus_per_node * topo.nodes
    if modelled and drawn is None:
        compute = spec.variables(world, size, topo, params)["c"]
        drawn = replay(trace, topo, scale, spec.contention, True, compute)
    spans, last_to_post = (drawn.spans, drawn.last_to_post) if modelled and drawn else ({}, {})
    graded = {r["id"]: r for r in trace["requests"] if r["graded"]}
    step, at_post, level = _steps(trace, graded)
    messages = [m for m in trace["messages"] if m["send"] in graded and m["recv"] in graded]
    collectives = [c for c in trace["collectives"] if all(r in graded for r in c["requests"])]
    program_of = programs(trace, computes=False)  # the view draws no judge's functions
    clocks, waits = _clocks(program_of, graded, _modelled_done(messages, collectives, spans),
                            step)
    critical = critical_path(messages, collectives, graded, step, program_of, clocks, topo,
                             scale, spans, last_to_post)
    return Schedule(topo, size, scale, modelled, graded, messages, collectives, spans, step,
                    at_post, level, clocks, waits, critical)


def _steps(trace: SwitchTrace, graded: dict[int, Request]) -> tuple[dict[int, int], dict[int, int],
                                                                 list[int]]:
    """(step per request's transfer, each request's level when posted, each rank's final level)."""
    messages = {m["id"]: m for m in trace["messages"]}
    collectives = {c["id"]: c for c in trace["collectives"]}
    # each post, and each wait's end: when the rank learnt what it waited for
    events = [(r["posted"], StepKind.POST, r["rank"], r["id"]) for r in graded.values()]
    events += [(w["end"], StepKind.WAIT, w["rank"], w["request"]) for w in trace["waits"]
               if w["end"] is not None and w["request"] in graded]
    events.sort(key=lambda e: (e[0], e[1]))
    level = [0] * trace["world_size"]
    at_post: dict[int, int] = {}
    step: dict[int, int] = {}

    def step_of(rid: int) -> int:
        if rid in step:
            return step[rid]
        req = graded[rid]
        if req["message"] is not None and req["message"] in messages:
            m = messages[req["message"]]
            sides = [s for s in (m["send"], m["recv"]) if s in at_post]
            value = max((at_post[s] for s in sides), default=0) + 1
            for s in (m["send"], m["recv"]):
                step[s] = value
            return value
        if req["collective"] is not None and req["collective"] in collectives:
            c = collectives[req["collective"]]
            value = max((at_post[s] for s in c["requests"] if s in at_post), default=0) + 1
            for s in c["requests"]:
                step[s] = value
            return value
        return at_post.get(rid, 0) + 1

    for _, kind, rank, rid in events:
        if kind is StepKind.POST:
            at_post[rid] = level[rank]
        elif graded[rid]["completed"] is not None:
            level[rank] = max(level[rank], step_of(rid))
    for rid, req in graded.items():
        if req["completed"] is not None:
            step_of(rid)
    return step, at_post, level


def _modelled_done(messages: list[Message], collectives: list[Collective],
                   spans: Spans) -> dict[int, float]:
    """Each request's modelled completion: the end of its message's or collective's span."""
    done: dict[int, float] = {}
    for m in messages:
        if ("m", m["id"]) in spans:
            done[m["send"]] = done[m["recv"]] = spans[("m", m["id"])][1]
    for c in collectives:
        if ("c", c["id"]) in spans:
            for rid in c["requests"]:
                done[rid] = spans[("c", c["id"])][1]
    return done


def _clocks(program_of: list[list[Step]], graded: dict[int, Request], done: dict[int, float],
            step: dict[int, int]) -> tuple[Clocks, list[RankWait]]:
    """Each rank's modelled clock through its program: when it posted each request, each of
    its waits and when its lane ends (None: it waits for a request the model never
    completes)."""
    post_t: dict[int, float] = {}
    waits: list[RankWait] = []
    lane_end: list[float | None] = []
    for rank, program in enumerate(program_of):
        clock: float | None = 0.0
        wait_level = 0
        for action in program:
            rid, item = action.request, action.wait
            if item is None:  # a post (no computes here: every other step is a wait)
                if clock is not None:
                    post_t[rid] = clock
                continue
            begin = clock
            if clock is not None:
                clock = max(clock, done[rid]) if rid in done else None
            from_step = wait_level
            if item["end"] is not None and rid in step:
                wait_level = max(wait_level, step[rid])
            ended = item["end"] is not None
            waits.append(RankWait(rank, from_step, wait_level if ended else None, begin,
                                  clock if ended else None, graded[rid]["line"]))
        mine = [done[a.request] for a in program if a.kind is StepKind.POST and a.request in done]
        lane_end.append(None if clock is None else max([clock, *mine]))
    return Clocks(done, post_t, lane_end), waits
