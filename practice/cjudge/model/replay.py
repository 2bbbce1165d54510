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
    k = len(scales)
    computes = computes if computes is not None else [0.0] * k
    spans: list[Spans] | None = [{} for _ in range(k)] if record else None
    world = trace["world_size"]
    topo.check(world)
    requests = {r["id"]: r for r in trace["requests"] if r["graded"]}
    messages = {m["id"]: m for m in trace["messages"]
                if m["send"] in requests and m["recv"] in requests}
    collectives = {c["id"]: c for c in trace["collectives"]}
    program_of = _program_of(trace)
    zero: Stamps = (ZERO,) * k
    clock: list[Stamps] = [zero] * world
    pc = [0] * world
    posted: dict[int, Stamps] = {}
    done: dict[int, Stamps] = {}
    arrived: dict[int, int] = {}
    blocked: dict[int, int] = {}  # request id -> the rank waiting for it
    ports: dict[tuple[int, str, str], Stamps] = {}  # (rank, "out"/"in", link class) -> free at
    link_bytes: list[dict[str, float]] = [{} for _ in range(k)]
    last_to_post: list[dict[int, int]] = [{} for _ in range(k)]
    #: per scale, (ready s, the send's and the receive's places in their ranks' programs,
    #: message id): ties go by the programs alone, never by the order the ranks' interleaving
    #: matched them in
    pending: list[list[tuple[float, tuple[int, int, int, int], int]]] = [[] for _ in range(k)]
    diverged: set[int] = set()
    place = {step.request: (rank, i) for rank, program in enumerate(program_of)
             for i, step in enumerate(program) if step.kind is StepKind.POST}
    runnable = list(range(world))

    def run(rank: int) -> None:
        program = program_of[rank]
        while pc[rank] < len(program):
            step = program[pc[rank]]
            rid = step.request
            if step.kind is StepKind.COMPUTE:
                clock[rank] = tuple(_after(c, w * step.units, 0, 0.0, 0.0, w * step.units)
                                    for c, w in zip(clock[rank], computes, strict=True))
            elif step.kind is StepKind.WAIT:
                if rid not in done:
                    blocked[rid] = rank
                    return
                clock[rank] = _latest(clock[rank], done[rid])
            else:
                posted[rid] = clock[rank]
                post(requests[rid])
            pc[rank] += 1

    def post(req: Request) -> None:
        if req["message"] is not None and req["message"] in messages:
            m = messages[req["message"]]
            if m["send"] in posted and m["recv"] in posted:
                ready = _latest(posted[m["send"]], posted[m["recv"]])
                (src, at), (dst, at_dst) = place[m["send"]], place[m["recv"]]
                for j in range(k):
                    if j not in diverged:
                        heapq.heappush(pending[j], (ready[j][0], (at, src, at_dst, dst), m["id"]))
        elif req["collective"] is not None and req["collective"] in collectives:
            c = collectives[req["collective"]]
            arrived[c["id"]] = arrived.get(c["id"], 0) + 1
            if arrived[c["id"]] == len(c["ranks"]):
                finish_collective(c)

    def complete(rid: int, stamp: Stamps) -> None:
        done[rid] = stamp
        if rid in blocked:
            runnable.append(blocked.pop(rid))

    def finish_collective(c: Collective) -> None:
        ends = []
        for j, scale in enumerate(scales):
            start = max(posted[rid][j] for rid in c["requests"])
            last = max(c["requests"], key=lambda rid: (posted[rid][j][0], -requests[rid]["rank"]))
            last_to_post[j][c["id"]] = requests[last]["rank"]
            if contention:  # after what its members' ports carry already (an earlier async one)
                start = max([start, *(ports.get((r, way, klass), zero)[j] for r in c["ranks"]
                                      for klass in topo.links for way in ("out", "in"))])
            cost = collective_cost(c["kind"], c["ranks"], [b * scale for b in c["size"]],
                                   [b * scale for b in c["bytes"]], c["root"], topo, contention)
            ends.append(_after(start, cost.latency + cost.transfer, cost.steps, cost.latency,
                               cost.transfer))
            if spans is not None:
                spans[j][("c", c["id"])] = (start[0], ends[-1][0])
            for klass, nbytes in cost.link_bytes.items():
                link_bytes[j][klass] = link_bytes[j].get(klass, 0.0) + nbytes
        end = tuple(ends)
        for r in c["ranks"]:
            for klass in topo.links:
                for way in ("out", "in"):
                    ports[(r, way, klass)] = _latest(ports.get((r, way, klass), zero), end)
        for rid in c["requests"]:
            complete(rid, end)

    def transfer(m: Message) -> None:
        ready = _latest(posted[m["send"]], posted[m["recv"]])
        src, dst = m["src"], m["dst"]
        starts: Sequence[Stamp]
        if src == dst:
            starts = ends = ready
        else:
            klass = topo.link_class(src, dst)
            link = topo.links[klass]
            out, into = (src, "out", klass), (dst, "in", klass)
            was_out, was_in = ports.get(out, zero), ports.get(into, zero)
            begun: list[Stamp] = []
            frees, finish = [], []
            for j, scale in enumerate(scales):
                nbytes = m["bytes"] * scale
                link_bytes[j][klass] = link_bytes[j].get(klass, 0.0) + nbytes
                start = max(ready[j], was_out[j], was_in[j]) if contention else ready[j]
                busy, xfer = link.busy(nbytes), nbytes / link.beta
                frees.append(_after(start, busy, 0, busy - xfer, xfer))
                finish.append(_after(start, link.seconds(nbytes), 1, link.alpha, xfer))
                begun.append(start)
            if contention:
                ports[out] = ports[into] = tuple(frees)
            starts, ends = begun, tuple(finish)
        if spans is not None:
            for j in range(k):
                spans[j][("m", m["id"])] = (starts[j][0], ends[j][0])
        complete(m["send"], ends)
        complete(m["recv"], ends)

    while True:
        while runnable:
            run(runnable.pop())
        if not pending[0]:
            break
        mid = heapq.heappop(pending[0])[2]
        for j in range(1, k):
            if j not in diverged:
                if pending[j][0][2] == mid:
                    heapq.heappop(pending[j])
                else:  # this scale takes another transfer first: its schedule differs
                    diverged.add(j)
                    pending[j] = []
        transfer(messages[mid])

    lost = any(r["completed"] is not None and r["id"] not in done for r in requests.values())
    complete_run = not lost and not blocked and all(pc[r] == len(program_of[r])
                                                    for r in range(world))
    out: list[Replay] = []
    for j in range(k):
        if j in diverged:
            out.append(replay(trace, topo, scales[j], contention, record, computes[j]))
            continue
        ends: list[Stamp] = []
        for rank in range(world):
            mine = [done[s.request][j] for s in program_of[rank]
                    if s.kind is StepKind.POST and s.request in done]
            ends.append(max([clock[rank][j], *mine]))
        last = max(ends, default=ZERO)
        out.append(Replay(last[0], last[1], last[2], last[3], last[4], link_bytes[j],
                          [e[0] for e in ends], last_to_post[j], complete_run,
                          spans[j] if spans is not None else {}))
    return out


def _latest(a: Stamps, b: Stamps) -> Stamps:
    """Per scale, the later of two stamps."""
    return tuple(map(max, a, b))
