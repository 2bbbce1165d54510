"""A case's ``timeline``: what the trace view draws, from the case's schedule
(``cjudge.model.schedule``: the switch's trace and the α-β model). The view draws and never
writes a verdict's words.

Two clocks are given for every message and collective:

* ``step``: its place in the run's dependency order (see ``cjudge.model.schedule``).
* ``t0``/``t1``: its modelled start and end in ns (``cjudge.model.replay``) on the exercise's
  topology at one modelled size ``size`` (the case's worst over the bound when it is too slow,
  else the middle of the exercise's sizes), every message's bytes scaled by ``size`` / S.

Only the graded call's traffic is drawn (what the bytes and the model count). At most
:data:`MAX_MESSAGES` messages are kept (the earliest steps); ``cut`` then says how many there were.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..contract import values
from ..contract.verdict_json import CaseResult
from ..grading.facts import CaseFacts
from ..model.case import ModelSpec
from ..model.critical import Hop
from ..model.replay import Replay, Spans
from ..model.schedule import RankWait, Schedule, case_schedule, ns
from ..switch.trace import Collective, Message, Request, SwitchTrace
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


def build_timeline(trace: SwitchTrace, spec: ModelSpec, run_size: int,
                   size: int | None = None, rank_states: list[str] | None = None,
                   too_slow: bool = False, params: Mapping[str, int | str] | None = None,
                   drawn: Replay | None = None) -> TimelineJSON:
    """The ``timeline`` of one case from its switch trace, scheduled here (see
    :func:`~cjudge.model.schedule.case_schedule` for ``params`` and ``drawn``) at ``size`` (by
    default the middle of the exercise's sizes)."""
    size = size or int(spec.sizes[len(spec.sizes) // 2])
    return draw(trace, case_schedule(trace, spec, run_size, size, params, drawn), run_size,
                rank_states, too_slow)


def draw(trace: SwitchTrace, schedule: Schedule, run_size: int,
         rank_states: list[str] | None = None, too_slow: bool = False) -> TimelineJSON:
    """The ``timeline`` of one case: its ``schedule`` as rows (see the module's docstring)."""
    world = trace["world_size"]
    graded, step, spans = schedule.graded, schedule.step, schedule.spans
    msg_rows = sorted((_message_row(m, graded, step, spans) for m in schedule.messages),
                      key=lambda m: (m["step"], m["id"]))
    coll_rows = sorted((_collective_row(c, graded, step, spans) for c in schedule.collectives),
                       key=lambda c: (c["step"], c["id"]))
    waits = _wait_rows(schedule.waits)
    pending = _pending_rows(graded, schedule.at_post, schedule.clocks.post_t)
    steps = max([0, *(m["step"] for m in msg_rows), *(c["step"] for c in coll_rows),
                 *(p["step"] for p in pending)])
    cut = _cut_rows(msg_rows, coll_rows, waits, pending)
    ends = [e for e in schedule.clocks.lane_end if e is not None]
    return {
        "version": VERSION, "world_size": world, "time_unit": "ns",
        "topology": schedule.topo.name, "size": schedule.size, "run_size": run_size,
        "scale": schedule.scale, "modelled": schedule.modelled, "steps": steps,
        "end_t": ns(max(ends)) if ends else None,
        "groups": trace["groups"] if len(trace["groups"]) > 1 else [],
        "lanes": _lane_rows(world, rank_states, schedule.level, schedule.clocks.lane_end),
        "messages": msg_rows, "collectives": coll_rows, "waits": waits,
        "pending": pending, "deadlock": _deadlock_rows(trace, schedule.level),
        "critical": [_critical_row(hop) for hop in schedule.critical], "too_slow": too_slow,
        "wrong": None, "cut": cut or False,
        "refused": [{"rank": r["rank"], "kind": r["kind"], "line": r["line"]}
                    for r in trace["refused"][:MAX_PENDING]],
    }


def _wait_rows(waits: list[RankWait]) -> list[WaitRow]:
    """The waits that took time (or never ended): the rank's step and clock before and after."""
    return [{"rank": w.rank, "s0": w.s0, "s1": w.s1, "t0": ns(w.t0), "t1": ns(w.t1),
             "line": w.line}
            for w in waits if w.s1 is None or w.s1 != w.s0 or ns(w.t1) != ns(w.t0)]


def _critical_row(hop: Hop) -> CriticalHop:
    """A hop of the critical path as the view draws it (a collective names the rank that
    posted last)."""
    row: CriticalHop = {"kind": "message" if hop.key[0] == "m" else "collective",
                        "id": hop.key[1]}
    if hop.key[0] == "c" and hop.waited is not None:
        row["rank"] = hop.waited
    return row


def _pending_rows(graded: dict[int, Request], at_post: dict[int, int],
                  post_t: dict[int, float]) -> list[PendingRow]:
    """The graded requests that never completed, with the step and time they were posted at."""
    return [{"rank": r["rank"], "kind": r["kind"], "peer": r["peer"], "tag": r["tag"],
             "bytes": r["bytes"], "line": r["line"], "step": at_post.get(rid, 0) + 1,
             "t": ns(post_t.get(rid))}
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
             "end_step": level[r], "end_t": ns(lane_end[r])} for r in range(world)]


def _message_row(m: Message, graded: dict[int, Request], step: dict[int, int],
                 spans: Spans) -> MessageRow:
    """A message as the view draws it: its ends, lines, step and modelled span."""
    s, r = graded[m["send"]], graded[m["recv"]]
    t0, t1 = spans.get(("m", m["id"]), (None, None))
    row: MessageRow = {"id": m["id"], "src": m["src"], "dst": m["dst"], "bytes": m["bytes"],
                       "tag": m["tag"], "line": s["line"], "recv_line": r["line"],
                       "step": step.get(m["send"], 0), "t0": ns(t0), "t1": ns(t1)}
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
            "step": step.get(c["requests"][0], 0), "t0": ns(t0), "t1": ns(t1)}


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
        timeline = draw(raw["trace"], facts.schedule, values.input_bytes(spec),
                        [r["state"] for r in raw["ranks"]], result.get("verdict") == "too_slow")
        label_chunks(timeline, raw["trace"], exercise.grader, spec)
        if result.get("verdict") == "wrong_answer":
            mark_wrong(timeline, facts)
        return timeline
    except Exception as exc:  # noqa: BLE001 - a view's bug must never change a verdict
        return {"version": VERSION, "error": f"{type(exc).__name__}: {exc}"}
