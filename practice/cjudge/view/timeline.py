"""A case's ``timeline``: what the trace view draws, from the switch's trace and the α-β model.

Two clocks are given for every message and collective:

* ``step``: its place in the run's dependency order. A rank's *level* is the highest step it has
  waited for; a transfer's step is one more than the levels of the ranks that posted it, at the
  time they posted it. A ring of n ranks has steps 1 … 2(n−1), whatever the interleaving.
* ``t0``/``t1``: its modelled start and end in ns (``cjudge.model.replay``) on the exercise's
  topology at one modelled size ``size`` (the case's worst over the bound when it is too slow,
  else the middle of the exercise's sizes), every message's bytes scaled by ``size`` / S.

Only the graded call's traffic is drawn (what the bytes and the model count). At most
:data:`MAX_MESSAGES` messages are kept (the earliest steps); ``cut`` then says how many there were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..contract import values
from ..contract.values import input_bytes
from ..contract.verdict_json import CaseResult
from ..grading.facts import CaseFacts
from ..model.case import ModelSpec, view_size
from ..model.replay import Replay, Spans, replay
from ..model.topology import Topology
from ..switch.trace import Collective, Message, Request, Step, StepKind, SwitchTrace, programs
from .buffers import label_chunks
from .schema import (
    CollectiveRow,
    CriticalHop,
    DeadlockRow,
    LaneRow,
    MessageRow,
    PendingRow,
    TimelineJSON,
    WaitRow,
)

VERSION = 1
MAX_MESSAGES = 2000
MAX_COLLECTIVES = 2000
MAX_WAITS = 4000
MAX_PENDING = 200
EPS = 1e-12


def _ns(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1e9, 1)


def _steps(trace: SwitchTrace, graded: dict[int, Request]) -> tuple[dict[int, int], dict[int, int],
                                                                 list[int]]:
    """(step per request's transfer, each request's level when posted, each rank's final level)."""
    messages = {m["id"]: m for m in trace["messages"]}
    collectives = {c["id"]: c for c in trace["collectives"]}
    # each post, and each wait's end: when the rank learnt what it waited for
    events: list[tuple[int, StepKind, Any]] = [(r["posted"], StepKind.POST, r)
                                               for r in graded.values()]
    events += [(w["end"], StepKind.WAIT, w) for w in trace["waits"]
               if w["end"] is not None and w["request"] in graded]
    events.sort(key=lambda e: (e[0], e[1]))
    level = [0] * trace["world_size"]
    at_post: dict[int, int] = {}
    step: dict[int, int] = {}  # request id -> the step of the transfer it took part in

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

    for _, kind, item in events:
        if kind is StepKind.POST:
            at_post[item["id"]] = level[item["rank"]]
        elif item["request"] in graded and graded[item["request"]]["completed"] is not None:
            level[item["rank"]] = max(level[item["rank"]], step_of(item["request"]))
    for rid, req in graded.items():
        if req["completed"] is not None:
            step_of(rid)
    return step, at_post, level


def build_timeline(trace: SwitchTrace, spec: ModelSpec, run_size: int,
                   size: int | None = None, rank_states: list[str] | None = None,
                   too_slow: bool = False, params: Mapping[str, int | str] | None = None,
                   drawn: Replay | None = None) -> TimelineJSON:
    """The ``timeline`` of one case from its switch trace (see the module's docstring);
    ``params``: the case's, which may place its ranks on nodes and set the compute charge;
    ``drawn``: the case's replay at ``size`` with its spans, when grading made it (else the
    trace is replayed here)."""
    world = trace["world_size"]
    graded = {r["id"]: r for r in trace["requests"] if r["graded"]}
    size = size or int(spec.sizes[len(spec.sizes) // 2])
    model = _model_view(trace, spec, run_size, size, params, drawn)
    step, at_post, level = _steps(trace, graded)
    messages = [m for m in trace["messages"] if m["send"] in graded and m["recv"] in graded]
    collectives = [c for c in trace["collectives"] if all(r in graded for r in c["requests"])]
    done = _modelled_done(messages, collectives, model.spans)
    program_of = programs(trace, computes=False)  # the view draws no judge's functions
    post_t, waits_out, lane_end = _clocks(program_of, graded, done, step)
    msg_rows = sorted((_message_row(m, graded, step, model.spans) for m in messages),
                      key=lambda m: (m["step"], m["id"]))
    coll_rows = sorted((_collective_row(c, graded, step, model.spans) for c in collectives),
                       key=lambda c: (c["step"], c["id"]))
    pending = _pending_rows(graded, at_post, post_t)
    deadlock = _deadlock_rows(trace, level)
    critical = _critical_path(msg_rows, coll_rows, program_of, done, post_t, lane_end, model.topo,
                              model.scale, graded, model.spans, model.last_to_post) \
        if model.spans and all(e is not None for e in lane_end) else []
    steps = max([0, *(m["step"] for m in msg_rows), *(c["step"] for c in coll_rows),
                 *(p["step"] for p in pending)])
    cut = _cut_rows(msg_rows, coll_rows, waits_out, pending)
    ends = [e for e in lane_end if e is not None]
    return {
        "version": VERSION, "world_size": world, "time_unit": "ns",
        "topology": model.topo.name, "size": size, "run_size": run_size, "scale": model.scale,
        "modelled": model.modelled, "steps": steps, "end_t": _ns(max(ends)) if ends else None,
        "groups": trace["groups"] if len(trace["groups"]) > 1 else [],
        "lanes": _lane_rows(world, rank_states, level, lane_end), "messages": msg_rows,
        "collectives": coll_rows, "waits": waits_out,
        "pending": pending, "deadlock": deadlock, "critical": critical, "too_slow": too_slow,
        "wrong": None, "cut": cut or False,
        "refused": [{"rank": r["rank"], "kind": r["kind"], "line": r["line"]}
                    for r in trace["refused"][:MAX_PENDING]],
    }


class _ModelView(NamedTuple):
    """The model's side of a timeline: the topology and scale it is drawn at and, when the
    case's ranks fit the topology, the replay's spans and who each collective waited for."""

    topo: Topology
    scale: float
    modelled: bool
    spans: Spans
    last_to_post: dict[int, int]


def _model_view(trace: SwitchTrace, spec: ModelSpec, run_size: int, size: int,
                params: Mapping[str, int | str] | None, drawn: Replay | None) -> _ModelView:
    """The case's topology and scale at ``size``, and its replay there (``drawn``, or replayed
    here) when its ranks fit the topology."""
    world = trace["world_size"]
    scale = size / run_size if run_size >= 1 else 1.0
    topo = spec.topology_for(world, params)
    if world > topo.gpus_per_node * topo.nodes:
        return _ModelView(topo, scale, False, {}, {})
    if drawn is None:
        compute = spec.variables(world, size, topo, params)["c"]
        drawn = replay(trace, topo, scale, spec.contention, True, compute)
    return _ModelView(topo, scale, True, drawn.spans, drawn.last_to_post)


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


def _pending_rows(graded: dict[int, Request], at_post: dict[int, int],
                  post_t: dict[int, float]) -> list[PendingRow]:
    """The graded requests that never completed, with the step and time they were posted at."""
    return [{"rank": r["rank"], "kind": r["kind"], "peer": r["peer"], "tag": r["tag"],
             "bytes": r["bytes"], "line": r["line"], "step": at_post.get(rid, 0) + 1,
             "t": _ns(post_t.get(rid))}
            for rid, r in sorted(graded.items()) if r["completed"] is None]


def _deadlock_rows(trace: SwitchTrace, level: list[int]) -> list[DeadlockRow]:
    """The trace's deadlock edges: who waits on whom, for what and from which step."""
    everything = {r["id"]: r for r in trace["requests"]}
    deadlock: list[DeadlockRow] = []
    for edge in trace["deadlock"]:
        req = everything.get(edge["request"])
        deadlock.append({"rank": edge["rank"], "on": edge["on"],
                         "kind": req["kind"] if req else None, "line": req["line"] if req else None,
                         "step": level[edge["rank"]] + 1})
    return deadlock


def _cut_rows(msg_rows: list[MessageRow], coll_rows: list[CollectiveRow],
              waits_out: list[WaitRow], pending: list[PendingRow]) -> dict[str, int]:
    """Cut each kind of row to its limit, in place; how many there were of each kind cut."""
    cut: dict[str, int] = {}
    rows: list[Any]
    for key, rows, limit in (("messages", msg_rows, MAX_MESSAGES),
                             ("collectives", coll_rows, MAX_COLLECTIVES),
                             ("waits", waits_out, MAX_WAITS), ("pending", pending, MAX_PENDING)):
        if len(rows) > limit:
            cut[key] = len(rows)
            del rows[limit:]
    return cut


def _lane_rows(world: int, rank_states: list[str] | None, level: list[int],
               lane_end: list[float | None]) -> list[LaneRow]:
    """Per rank, its lane: its state in the run, and the step and modelled time it ends at."""
    states = rank_states or [""] * world
    return [{"rank": r, "state": states[r] if r < len(states) else "",
             "end_step": level[r], "end_t": _ns(lane_end[r])} for r in range(world)]


def _clocks(program_of: list[list[Step]], graded: dict[int, Request], done: dict[int, float],
            step: dict[int, int]
            ) -> tuple[dict[int, float], list[WaitRow], list[float | None]]:
    """Each rank's modelled clock through its program: when it posted each request, its waits
    that took time (rows of the view) and when its lane ends (None: it waits for a request
    the model never completes)."""
    post_t: dict[int, float] = {}
    waits_out: list[WaitRow] = []
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
            s1, t1 = (wait_level, _ns(clock)) if ended else (None, None)
            if not ended or s1 != from_step or t1 != _ns(begin):  # only waits that took time
                waits_out.append({"rank": rank, "s0": from_step, "s1": s1, "t0": _ns(begin),
                                  "t1": t1, "line": graded[rid]["line"]})
        mine = [done[a.request] for a in program if a.kind is StepKind.POST and a.request in done]
        lane_end.append(None if clock is None else max([clock, *mine]))
    return post_t, waits_out, lane_end


def _message_row(m: Message, graded: dict[int, Request], step: dict[int, int],
                 spans: Spans) -> MessageRow:
    """A message as the view draws it: its ends, lines, step and modelled span."""
    s, r = graded[m["send"]], graded[m["recv"]]
    t0, t1 = spans.get(("m", m["id"]), (None, None))
    row: MessageRow = {"id": m["id"], "src": m["src"], "dst": m["dst"], "bytes": m["bytes"],
                       "tag": m["tag"], "line": s["line"], "recv_line": r["line"],
                       "step": step.get(m["send"], 0), "t0": _ns(t0), "t1": _ns(t1)}
    if m["group"]:
        row["group"] = m["group"]
    return row


def _collective_row(c: Collective, graded: dict[int, Request], step: dict[int, int],
                    spans: Spans) -> CollectiveRow:
    """A built-in collective as the view draws it: its ranks, lines, step and modelled span."""
    t0, t1 = spans.get(("c", c["id"]), (None, None))
    lines = [graded[rid]["line"] for rid in c["requests"]]
    return {"id": c["id"], "kind": c["kind"], "ranks": c["ranks"], "bytes": c["bytes"],
            "root": c["root"], "line": next((x for x in lines if x), None), "lines": lines,
            "step": step.get(c["requests"][0], 0), "t0": _ns(t0), "t1": _ns(t1)}


def _ps(seconds: float) -> int:
    """A modelled time in whole picoseconds: equal for transfers that tie, whatever order the
    run's interleaving gave their sums (ties are then broken by side and rank, not by that
    order)."""
    return round(seconds * 1e12)


def _critical_path(msg_rows: list[MessageRow], coll_rows: list[CollectiveRow],
                   program_of: list[list[Step]], done: dict[int, float],
                   post_t: dict[int, float], lane_end: list[float | None], topo: Topology,
                   scale: float, graded: dict[int, Request],
                   spans: dict[tuple[str, int], tuple[float, float]],
                   last_to_post: dict[int, int]) -> list[CriticalHop]:
    """The chain of transfers that decides when the last rank finishes, first to last; each
    collective names the rank whose post it waited for (``rank``, by the replay's clocks, which
    count the judge's functions: :attr:`~cjudge.model.replay.Replay.last_to_post`).

    Walks back from the last rank's last completion: a transfer that started when it was posted
    was waiting for the rank that posted it last, whose clock was the completion of a transfer it
    had waited for; one that started later waited for a port, freed by an earlier transfer.
    """
    walk = _CriticalWalk(_Transfers.of(msg_rows, coll_rows, graded), program_of, done, post_t,
                         topo, scale, spans)
    return _hops(walk.chain(walk.last_transfer(lane_end)), last_to_post)


#: a message ("m", id) or a collective ("c", id) of the view
_Key = tuple[str, int]


def _close(a: float, b: float) -> bool:
    """Whether two modelled times are the same but for rounding."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-9)


@dataclass
class _Transfers:
    """The view's messages and collectives as the critical path looks them up."""

    rows: dict[_Key, Any]  # a message's or a collective's row
    by_request: dict[int, _Key]  # a graded request -> the transfer it took part in
    sides: dict[_Key, list[Request]]  # a transfer -> the requests that took part in it
    touching: dict[int, list[_Key]]  # per rank, the transfers that hold its ports

    @classmethod
    def of(cls, msg_rows: list[MessageRow], coll_rows: list[CollectiveRow],
           graded: dict[int, Request]) -> _Transfers:
        """Index the rows of the view's messages and collectives and their graded requests."""
        by_request: dict[int, _Key] = {}
        sides: dict[_Key, list[Request]] = {}
        rows: dict[_Key, Any] = {}
        for m in msg_rows:
            rows[("m", m["id"])] = m
        for c in coll_rows:
            rows[("c", c["id"])] = c
        for rid, r in graded.items():
            key = ("m", r["message"]) if r["message"] is not None else ("c", r["collective"])
            if key in rows:
                by_request[rid] = key
                sides.setdefault(key, []).append(r)
        touching: dict[int, list[_Key]] = {}
        for key, row in rows.items():
            for rank in ((row["src"], row["dst"]) if key[0] == "m" else row["ranks"]):
                touching.setdefault(rank, []).append(key)
        return cls(rows, by_request, sides, touching)


@dataclass
class _CriticalWalk:
    """What the walk back along the critical path reads: the transfers, the ranks' programs
    and the modelled clocks."""

    transfers: _Transfers
    program_of: list[list[Step]]
    done: dict[int, float]
    post_t: dict[int, float]
    topo: Topology
    scale: float
    spans: Spans

    def last_transfer(self, lane_end: list[float | None]) -> _Key | None:
        """The transfer whose completion ended the last rank to finish."""
        last = max(range(len(lane_end)), key=lambda r: (_ps(lane_end[r] or 0.0), -r))
        end = lane_end[last] or 0.0
        current = None
        for action in self.program_of[last]:
            rid = action.request
            if rid in self.done and _close(self.done[rid], end) and rid in self.transfers.by_request:
                current = self.transfers.by_request[rid]
        return current

    def chain(self, current: _Key | None) -> list[_Key]:
        """The transfers from ``current`` back to the first it waited for, last first."""
        chain: list[_Key] = []
        seen: set[_Key] = set()
        while current is not None and current not in seen and current in self.spans:
            seen.add(current)
            chain.append(current)
            current = self.previous(current)
        return chain

    def previous(self, current: _Key) -> _Key | None:
        """The transfer that ``current`` waited for: the one that set the clock of the rank
        that posted it last, or the one that freed its port."""
        start = self.spans[current][0]
        posted = [(self.post_t.get(s["id"], 0.0), s) for s in self.transfers.sides.get(current, [])]
        # on a tie, the sender: the path follows the data back to where it came from
        ready, later = max(posted, key=lambda p: (_ps(p[0]), p[1]["kind"] == "send",
                                                  -p[1]["rank"])) if posted else (0.0, None)
        if start <= ready or _close(start, ready):
            if ready > 0 and later is not None:
                return self.waited_before(later["rank"], later["id"], ready)
            return None
        if current[0] == "m":  # it waited for a port: the transfer that freed it
            return self.freed_port(self.transfers.rows[current], start)
        return None

    def waited_before(self, rank: int, when_rid: int, at: float) -> _Key | None:
        """The transfer whose completion set ``rank``'s clock to ``at`` before posting."""
        best = None
        for action in self.program_of[rank]:
            if action.kind is StepKind.POST and action.request == when_rid:
                break
            if action.kind is StepKind.WAIT and action.request in self.done and \
                    _close(self.done[action.request], at):
                best = self.transfers.by_request.get(action.request)
        return best

    def freed_port(self, m: MessageRow, start: float) -> _Key | None:
        """The transfer whose end of port use let message ``m`` start at ``start``."""
        topo, rows, touching = self.topo, self.transfers.rows, self.transfers.touching
        klass = topo.link_class(m["src"], m["dst"])
        for key in sorted(touching.get(m["src"], []) + touching.get(m["dst"], []),
                          key=lambda k: (rows[k]["step"], rows[k].get("src", -1),
                                         rows[k].get("dst", -1), k[0])):
            other = rows[key]
            if other is m or key not in self.spans:
                continue
            if key[0] == "m":
                if topo.link_class(other["src"], other["dst"]) != klass or not (
                        other["src"] == m["src"] or other["dst"] == m["dst"]):
                    continue
                free = self.spans[key][0] + other["bytes"] * self.scale / topo.links[klass].beta
            else:
                free = self.spans[key][1]
            if _close(free, start):
                return key
        return None


def _hops(chain: list[_Key], last_to_post: dict[int, int]) -> list[CriticalHop]:
    """The critical path's hops, first to last, from its chain walked back (last first)."""
    hops: list[CriticalHop] = []
    for k, i in reversed(chain):
        hop: CriticalHop = {"kind": "message" if k == "m" else "collective", "id": i}
        if k == "c" and i in last_to_post:
            hop["rank"] = last_to_post[i]
        hops.append(hop)
    return hops


def first_wrong(got: Sequence[float | int], want: Sequence[float | int], dtype: str) -> int | None:
    """The first index where ``got`` differs from ``want`` (the grader's tolerance), if any."""
    for index, (g, w) in enumerate(zip(got, want, strict=False)):
        if not values.element_matches(g, w, dtype):
            return index
    return None if len(got) == len(want) else min(len(got), len(want))


def mark_wrong(timeline: TimelineJSON, facts: CaseFacts) -> None:
    """For a wrong answer: the first wrong element's rank, index, chunk (when the exercise's
    grader says, through its optional ``chunk_of(case, index)``) and the last message
    that rank received (the last write into its tensor the trace knows of)."""
    exercise, spec = facts.exercise, facts.spec
    for report, want in zip(facts.raw["ranks"], facts.expected, strict=False):
        got = report["output"]
        if not (values.is_tensor(got) and values.is_tensor(want)) or \
                list(got["shape"]) != list(want["shape"]):
            continue
        index = first_wrong(got["data"], want["data"], want["dtype"])
        if index is None:
            continue
        rank = report["rank"]
        chunk_of = getattr(exercise.grader, "chunk_of", None)
        chunk = chunk_of(spec["params"], spec["world_size"], index) if chunk_of else None
        into = [m for m in timeline["messages"] if m["dst"] == rank]
        timeline["wrong"] = {"rank": rank, "index": index, "chunk": chunk,
                             "last_recv": into[-1]["id"] if into else None}
        return


def case_timeline(facts: CaseFacts, result: CaseResult) -> TimelineJSON:
    """The ``timeline`` of a graded case (``result``: its verdict JSON so far).

    The view is for display only: should it fail, the case says so under ``error`` and its
    verdict stands.
    """
    exercise, spec, raw = facts.exercise, facts.spec, facts.raw
    try:
        timeline = build_timeline(raw["trace"], exercise.model, input_bytes(spec),
                                  view_size(exercise.model, result.get("model")),
                                  [r["state"] for r in raw["ranks"]],
                                  result.get("verdict") == "too_slow", spec["params"],
                                  facts.modelled.drawn if facts.modelled else None)
        label_chunks(timeline, raw["trace"], exercise.grader, spec)
        if result.get("verdict") == "wrong_answer":
            mark_wrong(timeline, facts)
        return timeline
    except Exception as exc:  # noqa: BLE001 - a view's bug must never change a verdict
        return {"version": VERSION, "error": f"{type(exc).__name__}: {exc}"}
