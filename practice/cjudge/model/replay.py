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

from ..switch.trace import Collective, Message, Request, Step, StepKind, SwitchTrace, programs
from .costs import collective_cost
from .topology import Topology

#: the kinds of a symmetric-memory load and store (``switch.symm``)
SYMM = frozenset({"symm_read", "symm_write"})

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
                            if s.kind is not StepKind.WAIT or s.request not in kinds], kinds)
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
        kind = kinds.get(step.request) if step.kind is StepKind.POST else None
        if kind == "symm_read":
            loads.append(step.request)
        elif kind == "symm_write":
            out += [Step(step.t, StepKind.WAIT, r) for r in loads]
            loads, stores = [], [*stores, step.request]
        elif step.kind is not StepKind.WAIT:
            out += [Step(step.t, StepKind.WAIT, r) for r in loads + stores]
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
    keeps its own queue of ready transfers; where a scale's next transfer is not the first
    scale's, its schedule differs, and that scale alone is walked again (never for a trace whose
    order does not depend on the size, as a ring's).
    """
    WALKS[0] += 1
    computes = computes if computes is not None else [0.0] * len(scales)
    walk = _Walk(trace, topo, scales, contention, computes, record)
    walk.walk()
    return walk.results()


class _Walk:
    """One walk of a trace at every scale at once (:func:`replay_sizes`): the trace's graded
    parts, and the clocks, ports and queues its steps share, one stamp per scale."""

    def __init__(self, trace: SwitchTrace, topo: Topology, scales: Sequence[float],
                 contention: bool, computes: Sequence[float], record: bool) -> None:
        k = len(scales)
        self.trace, self.topo, self.scales, self.k = trace, topo, scales, k
        self.contention, self.computes = contention, computes
        self.spans: list[Spans] | None = [{} for _ in range(k)] if record else None
        self.world = world = trace["world_size"]
        topo.check(world)
        self.requests: dict[int, Request] = {r["id"]: r for r in trace["requests"] if r["graded"]}
        self.messages: dict[int, Message] = {
            m["id"]: m for m in trace["messages"]
            if m["send"] in self.requests and m["recv"] in self.requests}
        self.collectives: dict[int, Collective] = {c["id"]: c for c in trace["collectives"]}
        self.program_of = program_of = _program_of(trace)
        self.zero: Stamps = (ZERO,) * k
        self.clock: list[Stamps] = [self.zero] * world
        self.pc = [0] * world
        self.posted: dict[int, Stamps] = {}
        self.done: dict[int, Stamps] = {}
        self.arrived: dict[int, int] = {}
        self.blocked: dict[int, int] = {}  # request id -> the rank waiting for it
        #: (rank, "out"/"in", link class) -> when the port is free
        self.ports: dict[tuple[int, str, str], Stamps] = {}
        self.link_bytes: list[dict[str, float]] = [{} for _ in range(k)]
        self.last_to_post: list[dict[int, int]] = [{} for _ in range(k)]
        self.pending: list[list[_Ready]] = [[] for _ in range(k)]  # per scale, ready transfers
        self.diverged: set[int] = set()  # the scales whose schedule differs from the first's
        self.place = {step.request: (rank, i) for rank, program in enumerate(program_of)
                      for i, step in enumerate(program) if step.kind is StepKind.POST}
        self.runnable = list(range(world))

    def walk(self) -> None:
        """Run the ranks until each ends or waits, start the next ready transfer, and again,
        until no transfer is ready."""
        runnable = self.runnable
        while True:
            while runnable:
                self.run(runnable.pop())
            mid = self.next_transfer()
            if mid is None:
                break
            self.transfer(self.messages[mid])

    def run(self, rank: int) -> None:
        """Run ``rank``'s program from where it is until it ends or waits for an unfinished
        request."""
        program, pc, clock, done = self.program_of[rank], self.pc, self.clock, self.done
        while pc[rank] < len(program):
            step = program[pc[rank]]
            rid = step.request
            if step.kind is StepKind.COMPUTE:
                clock[rank] = tuple(_after(c, w * step.units, 0, 0.0, 0.0, w * step.units)
                                    for c, w in zip(clock[rank], self.computes, strict=True))
            elif step.kind is StepKind.WAIT:
                if rid not in done:
                    self.blocked[rid] = rank
                    return
                clock[rank] = _latest(clock[rank], done[rid])
            else:
                self.posted[rid] = clock[rank]
                self.post(self.requests[rid])
            pc[rank] += 1

    def post(self, req: Request) -> None:
        """A posted request: its message is queued once both its ends are posted; its
        collective is run once its last member arrives."""
        if req["message"] is not None and req["message"] in self.messages:
            m = self.messages[req["message"]]
            posted = self.posted
            if m["send"] in posted and m["recv"] in posted:
                ready = _latest(posted[m["send"]], posted[m["recv"]])
                (src, at), (dst, at_dst) = self.place[m["send"]], self.place[m["recv"]]
                for j in range(self.k):
                    if j not in self.diverged:
                        heapq.heappush(self.pending[j],
                                       (ready[j][0], (at, src, at_dst, dst), m["id"]))
        elif req["collective"] is not None and req["collective"] in self.collectives:
            c = self.collectives[req["collective"]]
            self.arrived[c["id"]] = self.arrived.get(c["id"], 0) + 1
            if self.arrived[c["id"]] == len(c["ranks"]):
                self.finish_collective(c)

    def complete(self, rid: int, stamp: Stamps) -> None:
        """Request ``rid`` ends at ``stamp``: the rank waiting for it, if any, runs on."""
        self.done[rid] = stamp
        if rid in self.blocked:
            self.runnable.append(self.blocked.pop(rid))

    def next_transfer(self) -> int | None:
        """The message the first scale starts next (None: none is ready); a scale whose next
        one is another has a schedule of its own and leaves the walk."""
        pending = self.pending
        if not pending[0]:
            return None
        mid = heapq.heappop(pending[0])[2]
        for j in range(1, self.k):
            if j not in self.diverged:
                if pending[j][0][2] == mid:
                    heapq.heappop(pending[j])
                else:  # this scale takes another transfer first: its schedule differs
                    self.diverged.add(j)
                    pending[j] = []
        return mid

    def finish_collective(self, c: Collective) -> None:
        """Run a built-in collective whose members have all posted: at each scale it starts
        when the last arrives (and its ports are free) and costs what its algorithm costs."""
        ends = tuple(self.collective_end(c, j, scale) for j, scale in enumerate(self.scales))
        ports, zero = self.ports, self.zero
        for r in c["ranks"]:
            for klass in self.topo.links:
                for way in ("out", "in"):
                    ports[(r, way, klass)] = _latest(ports.get((r, way, klass), zero), ends)
        for rid in c["requests"]:
            self.complete(rid, ends)

    def collective_end(self, c: Collective, j: int, scale: float) -> Stamp:
        """When collective ``c`` ends at scale ``j``; notes who posted last, its span and the
        bytes it moves."""
        posted, requests = self.posted, self.requests
        start = max(posted[rid][j] for rid in c["requests"])
        last = max(c["requests"], key=lambda rid: (posted[rid][j][0], -requests[rid]["rank"]))
        self.last_to_post[j][c["id"]] = requests[last]["rank"]
        if self.contention:  # after what its members' ports carry already (an earlier async one)
            start = max([start, *(self.ports.get((r, way, klass), self.zero)[j] for r in c["ranks"]
                                  for klass in self.topo.links for way in ("out", "in"))])
        cost = collective_cost(c["kind"], c["ranks"], [b * scale for b in c["size"]],
                               [b * scale for b in c["bytes"]], c["root"], self.topo,
                               self.contention)
        end = _after(start, cost.latency + cost.transfer, cost.steps, cost.latency, cost.transfer)
        if self.spans is not None:
            self.spans[j][("c", c["id"])] = (start[0], end[0])
        link_bytes = self.link_bytes[j]
        for klass, nbytes in cost.link_bytes.items():
            link_bytes[klass] = link_bytes.get(klass, 0.0) + nbytes
        return end

    def transfer(self, m: Message) -> None:
        """Move message ``m``, ready once both its ends are posted: at each scale it starts when
        its ports are free and ends α + bytes/β later."""
        ready = _latest(self.posted[m["send"]], self.posted[m["recv"]])
        starts: Sequence[Stamp]
        if m["src"] == m["dst"]:
            starts = ends = ready
        else:
            starts, ends = self.on_link(m, ready)
        if self.spans is not None:
            for j in range(self.k):
                self.spans[j][("m", m["id"])] = (starts[j][0], ends[j][0])
        self.complete(m["send"], ends)
        self.complete(m["recv"], ends)

    def on_link(self, m: Message, ready: Stamps) -> tuple[list[Stamp], Stamps]:
        """Per scale, when message ``m`` between two ranks starts and ends; its ports are busy
        until it is through them, and its link class carries its bytes."""
        klass = self.topo.link_class(m["src"], m["dst"])
        link = self.topo.links[klass]
        out, into = (m["src"], "out", klass), (m["dst"], "in", klass)
        was_out, was_in = self.ports.get(out, self.zero), self.ports.get(into, self.zero)
        contention = self.contention
        begun: list[Stamp] = []
        frees, finish = [], []
        for j, scale in enumerate(self.scales):
            nbytes = m["bytes"] * scale
            link_bytes = self.link_bytes[j]
            link_bytes[klass] = link_bytes.get(klass, 0.0) + nbytes
            start = max(ready[j], was_out[j], was_in[j]) if contention else ready[j]
            busy, xfer = link.busy(nbytes), nbytes / link.beta
            frees.append(_after(start, busy, 0, busy - xfer, xfer))
            finish.append(_after(start, link.seconds(nbytes), 1, link.alpha, xfer))
            begun.append(start)
        if contention:
            self.ports[out] = self.ports[into] = tuple(frees)
        return begun, tuple(finish)

    def results(self) -> list[Replay]:
        """Each scale's :class:`Replay`: this walk's, or, for a scale whose schedule differs,
        its own walk's."""
        lost = any(r["completed"] is not None and r["id"] not in self.done
                   for r in self.requests.values())
        complete_run = not lost and not self.blocked and all(
            self.pc[r] == len(self.program_of[r]) for r in range(self.world))
        out: list[Replay] = []
        for j in range(self.k):
            if j in self.diverged:
                out.append(replay(self.trace, self.topo, self.scales[j], self.contention,
                                  self.spans is not None, self.computes[j]))
                continue
            ends = self.rank_ends(j)
            last = max(ends, default=ZERO)
            out.append(Replay(last[0], last[1], last[2], last[3], last[4], self.link_bytes[j],
                              [e[0] for e in ends], self.last_to_post[j], complete_run,
                              self.spans[j] if self.spans is not None else {}))
        return out

    def rank_ends(self, j: int) -> list[Stamp]:
        """Per rank, at scale ``j``: when it finished, its clock or the last end of a request
        it posted, whichever is later."""
        ends: list[Stamp] = []
        done = self.done
        for rank in range(self.world):
            mine = [done[s.request][j] for s in self.program_of[rank]
                    if s.kind is StepKind.POST and s.request in done]
            ends.append(max([self.clock[rank][j], *mine]))
        return ends


def _latest(a: Stamps, b: Stamps) -> Stamps:
    """Per scale, the later of two stamps."""
    return tuple(map(max, a, b))
