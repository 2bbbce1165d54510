"""Replay a switch trace under the α-β model: when would this run have finished on a topology?

Each rank has a clock and runs its program in order: its graded requests (by ``posted``) and its
waits (by ``begin``). A post costs nothing; a wait moves the rank's clock to the completion of
the request it waits for. A matched message starts at

    max(send posted, receive posted, sender's egress port free, receiver's ingress port free)

and completes α + bytes/β later, α and β those of the link class between the two ranks. A port
(one per rank, direction and link class: full duplex, NVLink and NIC apart) is busy for the
bytes/β of each transfer, and at least for the link's gap g (LogGP: a port starts one message per
g, so an empty message is not free); α is the wire's latency and overlaps the next transfer.
Transfers take ports in the order they became ready, ties broken by the ranks' programs (never
by the interleaving the switch happened to see). A built-in collective starts when its last
member arrives and costs what its algorithm costs (:mod:`.costs`); its members' ports are busy
until it ends.
``contention=False`` never waits for a port: the textbook numbers. A call of a function the
judge handed the rank (the trace's ``computes``: a pipeline stage) moves its clock on by the
exercise's declared ``compute`` seconds times the call's units, in program order. A load from or
a store into symmetric memory (the trace's ``symm_read`` / ``symm_write``: a message from the
buffer's owner, or to it) is a transfer like a message's, ready when the rank issues it: loads and
stores go out back to back; a store waits for the rank's loads before it, anything else (a
barrier) for all its accesses (:func:`_symm_waits`).

Every time carries its critical path: steps (α paid), latency (α and gaps), bandwidth and compute
seconds, so a result can say which term dominates.

Every graded request is in the replay. One the switch completed that the replay cannot (a message
with an ungraded end, a wait that never ends) makes the replay incomplete: for a finished case,
a defect of the judge's record, never a reason to skip a bound.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from ..switch.trace import Collective, Message, Request, Step, StepKind, SwitchTrace, programs
from .costs import collective_cost
from .topology import Link, Topology

#: the kinds of a symmetric-memory load and store (``switch.symm``)
SYMM = frozenset({"symm_read", "symm_write"})
#: a program step's kinds, looked up once (an enum member's lookup is slow, and the walk makes
#: one per step)
_POST, _WAIT, _COMPUTE = StepKind.POST, StepKind.WAIT, StepKind.COMPUTE

#: a modelled time and its critical path: (seconds, steps, latency seconds, bandwidth seconds,
#: compute seconds)
Stamp = tuple[float, int, float, float, float]
ZERO: Stamp = (0.0, 0, 0.0, 0.0, 0.0)
#: one stamp per modelled scale (:func:`replay_sizes`)
Stamps = tuple[Stamp, ...]
#: per transfer, its modelled (start, end) in s: ("m", message id) or ("c", collective id)
Spans = dict[tuple[str, int], tuple[float, float]]


@dataclass
class Replay:
    """What the replay found for one case at one scale."""

    time: float  # s: when the last rank finished
    steps: int  # α paid on the critical path
    latency: float  # s of the critical path spent in α terms
    transfer: float  # s of the critical path spent in bytes/β terms
    compute: float = 0.0  # s of the critical path spent in the judge's functions
    link_bytes: dict[str, float] = field(default_factory=dict)  # bytes moved per link class
    rank_time: list[float] = field(default_factory=list)  # s: when each rank finished
    #: collective id -> the rank whose post it waited for, the last to post (the lowest on a tie)
    last_to_post: dict[int, int] = field(default_factory=dict)
    #: False: a graded request the switch completed has no end in the replay (a judge defect)
    #: or some wait never completes (the run did not finish)
    complete: bool = True
    #: each transfer's modelled (start, end), when the replay was asked to record them
    spans: Spans = field(default_factory=dict)


def _after(stamp: Stamp, seconds: float, steps: int, latency: float, transfer: float,
           compute: float = 0.0) -> Stamp:
    return (stamp[0] + seconds, stamp[1] + steps, stamp[2] + latency, stamp[3] + transfer,
            stamp[4] + compute)


def _program_of(trace: SwitchTrace) -> list[list[Step]]:
    """Per rank, the program the replay runs: its program order (``switch.trace.programs``),
    with the waits for its symmetric-memory accesses those the model implies instead of those
    the rank made (:func:`_symm_waits`)."""
    kinds = {r["id"]: r["kind"] for r in trace["requests"] if r["kind"] in SYMM}
    out = programs(trace)
    if kinds:
        out = [_symm_waits([s for s in program
                            if s.kind is not _WAIT or s.request not in kinds], kinds)
               for program in out]
    return out


def _symm_waits(program: list[Step], kinds: dict[int, str]) -> list[Step]:
    """``program`` with the waits its symmetric-memory accesses imply: a rank's loads and stores
    go out back to back; a store waits for the loads before it (its data may come from them),
    and anything else (a barrier, a call) for every access before it."""
    out: list[Step] = []
    loads: list[int] = []
    stores: list[int] = []
    for step in program:
        kind = kinds.get(step.request) if step.kind is _POST else None
        if kind == "symm_read":
            loads.append(step.request)
        elif kind == "symm_write":
            out += [Step(step.t, _WAIT, r) for r in loads]
            loads, stores = [], [*stores, step.request]
        elif step.kind is not _WAIT:
            out += [Step(step.t, _WAIT, r) for r in loads + stores]
            loads, stores = [], []
        out.append(step)
    return out


def replay(trace: SwitchTrace, topo: Topology, scale: float = 1.0,
           contention: bool = True, record: bool = False, compute: float = 0.0) -> Replay:
    """Replay ``trace`` on ``topo`` with every message's bytes multiplied by ``scale``, each
    call of a judge's function costing ``compute`` seconds.

    ``record``: keep every transfer's and collective's modelled start and end (``spans``).
    """
    return replay_sizes(trace, topo, [scale], contention, [compute], record)[0]


#: how many times :func:`replay_sizes` walked a trace (what a test counts: one per case)
WALKS = [0]

#: a ready transfer in a scale's queue: (ready s, the send's and the receive's places in their
#: ranks' programs, message id); ties go by the programs alone, never by the order the ranks'
#: interleaving matched them in
_Ready = tuple[float, tuple[int, int, int, int], int]


def replay_sizes(trace: SwitchTrace, topo: Topology, scales: Sequence[float],
                 contention: bool = True, computes: Sequence[float] | None = None,
                 record: bool = False) -> list[Replay]:
    """:func:`replay` at every scale of ``scales`` (``computes``: each one's seconds per call of
    a judge's function) in one walk of the trace; ``record``: each scale's replay keeps its
    transfers' spans (what the trace view draws at one of them).

    For a fixed schedule every time is affine in the scale, so the walk carries one stamp per
    scale through the same program steps. The schedule is fixed but for one choice: which ready
    transfer takes the ports next, by ready time, which may differ between scales. So each scale
    keeps its own queue of ready transfers; where the scales' next transfers differ, their
    schedules part, and the walk goes on from there as one walk per group of scales that agree
    (never for a trace whose order does not depend on the size, as a ring's).
    """
    WALKS[0] += 1
    computes = computes if computes is not None else [0.0] * len(scales)
    walk = _Walk(_Parts.of(trace, topo, contention, record), scales, computes)
    walk.walk()
    return [walk.result(j) for j in range(len(scales))]


class _Wire(NamedTuple):
    """A message between two ranks as the walk moves it: its ports, link class and link."""

    out: tuple[int, str, str]  # the sender's egress port
    into: tuple[int, str, str]  # the receiver's ingress port
    klass: str
    link: Link

    @classmethod
    def between(cls, topo: Topology, src: int, dst: int) -> _Wire:
        """The wire from rank ``src`` to rank ``dst`` on ``topo``."""
        klass = topo.link_class(src, dst)
        return cls((src, "out", klass), (dst, "in", klass), klass, topo.links[klass])


@dataclass
class _Parts:
    """A trace's graded parts as a walk reads them, shared by every walk of it: each modelled
    message's and collective's requests, each message's place in the queues and its wire."""

    trace: SwitchTrace
    topo: Topology
    contention: bool
    record: bool
    requests: dict[int, Request]
    messages: dict[int, Message]
    program_of: list[list[Step]]
    posts: list[list[int]]  # per rank, the requests it posts, in program order
    message_of: dict[int, Message]  # a request -> the modelled message it is an end of
    collective_of: dict[int, Collective]  # a request -> the collective it is a member of
    order: dict[int, tuple[int, int, int, int]]  # a message -> its ends' places in the programs
    wires: dict[int, _Wire]  # a message between two ranks -> its wire

    @classmethod
    def of(cls, trace: SwitchTrace, topo: Topology, contention: bool, record: bool) -> _Parts:
        """Index ``trace``'s graded requests, messages and collectives."""
        topo.check(trace["world_size"])
        requests = {r["id"]: r for r in trace["requests"] if r["graded"]}
        messages = {m["id"]: m for m in trace["messages"]
                    if m["send"] in requests and m["recv"] in requests}
        collectives = {c["id"]: c for c in trace["collectives"]}
        message_of: dict[int, Message] = {}
        collective_of: dict[int, Collective] = {}
        for rid, r in requests.items():
            if r["message"] is not None and r["message"] in messages:
                message_of[rid] = messages[r["message"]]
            elif r["collective"] is not None and r["collective"] in collectives:
                collective_of[rid] = collectives[r["collective"]]
        program_of = _program_of(trace)
        place = {step.request: (rank, i) for rank, program in enumerate(program_of)
                 for i, step in enumerate(program) if step.kind is _POST}
        posts = [[step.request for step in program if step.kind is _POST]
                 for program in program_of]
        order: dict[int, tuple[int, int, int, int]] = {}
        wires: dict[int, _Wire] = {}
        between: dict[tuple[int, int], _Wire] = {}  # (src, dst) -> its wire, made once
        for mid, m in messages.items():
            (src, at), (dst, at_dst) = place[m["send"]], place[m["recv"]]
            order[mid] = (at, src, at_dst, dst)
            pair = (m["src"], m["dst"])
            if pair[0] != pair[1]:
                if pair not in between:
                    between[pair] = _Wire.between(topo, *pair)
                wires[mid] = between[pair]
        return cls(trace, topo, contention, record, requests, messages, program_of, posts,
                   message_of, collective_of, order, wires)


class _Walk:
    """A walk of a trace at several scales at once (:func:`replay_sizes`): the clocks, ports
    and queues its steps share, one stamp per scale. Where the scales' schedules part, it hands
    its state on to one walk per group of scales that agree (:meth:`part`)."""

    def __init__(self, parts: _Parts, scales: Sequence[float], computes: Sequence[float]) -> None:
        k = len(scales)
        self.parts, self.scales, self.computes, self.k = parts, scales, computes, k
        self.spans: list[Spans] | None = [{} for _ in range(k)] if parts.record else None
        self.world = world = parts.trace["world_size"]
        self.zero: Stamps = (ZERO,) * k
        self.clock: list[Stamps] = [self.zero] * world
        self.pc = [0] * world
        self.posted: dict[int, Stamps] = {}
        self.ready: dict[int, Stamps] = {}  # a queued message -> when both its ends were posted
        self.done: dict[int, Stamps] = {}
        self.arrived: dict[int, int] = {}
        self.blocked: dict[int, int] = {}  # request id -> the rank waiting for it
        #: (rank, "out"/"in", link class) -> when the port is free
        self.ports: dict[tuple[int, str, str], Stamps] = {}
        self.link_bytes: list[dict[str, float]] = [{} for _ in range(k)]
        self.last_to_post: list[dict[int, int]] = [{} for _ in range(k)]
        self.pending: list[list[_Ready]] = [[] for _ in range(k)]  # per scale, ready transfers
        self.runnable = list(range(world))
        #: where the schedules parted: each scale's walk from there and its index in it
        self.parted: list[tuple[_Walk, int]] = []

    def walk(self) -> None:
        """Run the ranks until each ends or waits, start the next ready transfer, and again,
        until no transfer is ready or the scales' next transfers differ."""
        runnable, pending = self.runnable, self.pending
        while True:
            while runnable:
                self.run(runnable.pop())
            if not pending[0]:
                return
            mid = pending[0][0][2]
            for queue in pending:
                if queue[0][2] != mid:
                    self.part()
                    return
            for queue in pending:
                heapq.heappop(queue)
            self.transfer(mid)

    def part(self) -> None:
        """The scales take different transfers next: each group of scales that take the same
        one goes on in a walk of its own from this walk's state."""
        groups: dict[int, list[int]] = {}
        for j, queue in enumerate(self.pending):
            groups.setdefault(queue[0][2], []).append(j)
        parted: dict[int, tuple[_Walk, int]] = {}
        for group in groups.values():
            child = self.taken(group)
            child.walk()
            parted.update({j: (child, i) for i, j in enumerate(group)})
        self.parted = [parted[j] for j in range(self.k)]

    def taken(self, group: list[int]) -> _Walk:
        """A walk of the scales ``group`` that starts where this one stands."""
        child = _Walk(self.parts, [self.scales[j] for j in group],
                      [self.computes[j] for j in group])

        def pick(stamps: Stamps) -> Stamps:
            return tuple(stamps[j] for j in group)

        child.clock = [pick(c) for c in self.clock]
        child.pc = self.pc.copy()
        child.posted = {rid: pick(s) for rid, s in self.posted.items()}
        child.ready = {mid: pick(s) for mid, s in self.ready.items()}
        child.done = {rid: pick(s) for rid, s in self.done.items()}
        child.arrived, child.blocked = self.arrived.copy(), self.blocked.copy()
        child.ports = {port: pick(s) for port, s in self.ports.items()}
        child.link_bytes = [self.link_bytes[j].copy() for j in group]
        child.last_to_post = [self.last_to_post[j].copy() for j in group]
        child.pending = [self.pending[j].copy() for j in group]
        child.runnable = self.runnable.copy()
        if self.spans is not None:
            child.spans = [self.spans[j].copy() for j in group]
        return child

    def run(self, rank: int) -> None:
        """Run ``rank``'s program from where it is until it ends or waits for an unfinished
        request."""
        program, done, computes = self.parts.program_of[rank], self.done, self.computes
        pc, clock = self.pc[rank], self.clock[rank]
        while pc < len(program):
            _, kind, rid, units, _ = program[pc]
            if kind is _COMPUTE:
                clock = tuple((c[0] + w * units, c[1], c[2], c[3], c[4] + w * units)
                              for c, w in zip(clock, computes, strict=True))
            elif kind is _WAIT:
                if rid not in done:
                    self.blocked[rid] = rank
                    break
                clock = _latest(clock, done[rid])
            else:
                self.posted[rid] = clock
                self.post(rid)
            pc += 1
        self.pc[rank], self.clock[rank] = pc, clock

    def post(self, rid: int) -> None:
        """A posted request: its message is queued once both its ends are posted; its
        collective is run once its last member arrives."""
        parts, posted = self.parts, self.posted
        m = parts.message_of.get(rid)
        if m is not None:
            send, recv = m["send"], m["recv"]
            if send in posted and recv in posted:
                mid, order = m["id"], parts.order[m["id"]]
                self.ready[mid] = ready = _latest(posted[send], posted[recv])
                for queue, stamp in zip(self.pending, ready, strict=True):
                    heapq.heappush(queue, (stamp[0], order, mid))
        elif rid in parts.collective_of:
            c = parts.collective_of[rid]
            self.arrived[c["id"]] = self.arrived.get(c["id"], 0) + 1
            if self.arrived[c["id"]] == len(c["ranks"]):
                self.finish_collective(c)

    def complete(self, rid: int, stamp: Stamps) -> None:
        """Request ``rid`` ends at ``stamp``: the rank waiting for it, if any, runs on."""
        self.done[rid] = stamp
        if rid in self.blocked:
            self.runnable.append(self.blocked.pop(rid))

    def finish_collective(self, c: Collective) -> None:
        """Run a built-in collective whose members have all posted: at each scale it starts
        when the last arrives (and its ports are free) and costs what its algorithm costs."""
        ends = tuple(self.collective_end(c, j, scale) for j, scale in enumerate(self.scales))
        ports, zero = self.ports, self.zero
        for r in c["ranks"]:
            for klass in self.parts.topo.links:
                for way in ("out", "in"):
                    ports[(r, way, klass)] = _latest(ports.get((r, way, klass), zero), ends)
        for rid in c["requests"]:
            self.complete(rid, ends)

    def collective_end(self, c: Collective, j: int, scale: float) -> Stamp:
        """When collective ``c`` ends at scale ``j``; notes who posted last, its span and the
        bytes it moves."""
        posted, requests, topo = self.posted, self.parts.requests, self.parts.topo
        start = max(posted[rid][j] for rid in c["requests"])
        last = max(c["requests"], key=lambda rid: (posted[rid][j][0], -requests[rid]["rank"]))
        self.last_to_post[j][c["id"]] = requests[last]["rank"]
        contention = self.parts.contention
        if contention:  # after what its members' ports carry already (an earlier async one)
            start = max([start, *(self.ports.get((r, way, klass), self.zero)[j] for r in c["ranks"]
                                  for klass in topo.links for way in ("out", "in"))])
        cost = collective_cost(c["kind"], c["ranks"], [b * scale for b in c["size"]],
                               [b * scale for b in c["bytes"]], c["root"], topo, contention)
        end = _after(start, cost.latency + cost.transfer, cost.steps, cost.latency, cost.transfer)
        if self.spans is not None:
            self.spans[j][("c", c["id"])] = (start[0], end[0])
        link_bytes = self.link_bytes[j]
        for klass, nbytes in cost.link_bytes.items():
            link_bytes[klass] = link_bytes.get(klass, 0.0) + nbytes
        return end

    def transfer(self, mid: int) -> None:
        """Move message ``mid``, ready once both its ends are posted: at each scale it starts
        when its ports are free and ends α + bytes/β later."""
        m, ready = self.parts.messages[mid], self.ready.pop(mid)
        starts: Sequence[Stamp]
        wire = self.parts.wires.get(mid)
        if wire is None:  # a rank's message to itself
            starts = ends = ready
        else:
            starts, ends = self.on_link(m["bytes"], wire, ready)
        if self.spans is not None:
            key = ("m", mid)
            for spans, start, end in zip(self.spans, starts, ends, strict=True):
                spans[key] = (start[0], end[0])
        self.complete(m["send"], ends)
        self.complete(m["recv"], ends)

    def on_link(self, size: int, wire: _Wire, ready: Stamps) -> tuple[list[Stamp], Stamps]:
        """Per scale, when a message of ``size`` bytes (in the run) on ``wire`` starts and ends;
        its ports are busy until it is through them, and its link class carries its bytes."""
        klass, alpha, beta, gap = wire.klass, wire.link.alpha, wire.link.beta, wire.link.gap
        contention, ports = self.parts.contention, self.ports
        was_out, was_in = ports.get(wire.out, self.zero), ports.get(wire.into, self.zero)
        begun: list[Stamp] = []
        frees, finish = [], []
        for j, scale in enumerate(self.scales):
            nbytes = size * scale
            link_bytes = self.link_bytes[j]
            link_bytes[klass] = link_bytes.get(klass, 0.0) + nbytes
            start = max(ready[j], was_out[j], was_in[j]) if contention else ready[j]
            t, steps, latency, transfer, compute = start
            xfer = nbytes / beta
            busy = gap if gap > xfer else xfer  # the port's: bytes/β, at least the gap
            frees.append((t + busy, steps, latency + (busy - xfer), transfer + xfer, compute))
            finish.append((t + (alpha + xfer), steps + 1, latency + alpha, transfer + xfer,
                           compute))
            begun.append(start)
        if contention:
            ports[wire.out] = ports[wire.into] = tuple(frees)
        return begun, tuple(finish)

    def result(self, j: int) -> Replay:
        """Scale ``j``'s :class:`Replay`: this walk's or, where the schedules parted, that of
        the walk its scale went on in."""
        if self.parted:
            child, i = self.parted[j]
            return child.result(i)
        ends = [stamps[j] for stamps in self.rank_ends]
        last = max(ends, default=ZERO)
        return Replay(last[0], last[1], last[2], last[3], last[4], self.link_bytes[j],
                      [e[0] for e in ends], self.last_to_post[j], self.complete_run,
                      self.spans[j] if self.spans is not None else {})

    @cached_property
    def complete_run(self) -> bool:
        """Whether every rank ran to its end and every request the switch completed ended."""
        parts, done = self.parts, self.done
        lost = any(r["completed"] is not None and r["id"] not in done
                   for r in parts.requests.values())
        return not lost and not self.blocked and all(
            self.pc[r] == len(parts.program_of[r]) for r in range(self.world))

    @cached_property
    def rank_ends(self) -> list[Stamps]:
        """Per rank, at each scale: when it finished, its clock or the last end of a request it
        posted, whichever is later."""
        done = self.done
        return [tuple(map(max, zip(clock, *(done[rid] for rid in posts if rid in done),
                                   strict=True)))
                for clock, posts in zip(self.clock, self.parts.posts, strict=True)]


def _latest(a: Stamps, b: Stamps) -> Stamps:
    """Per scale, the later of two stamps."""
    return tuple(map(max, a, b))
