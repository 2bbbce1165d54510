"""A case's run as Chrome trace-event JSON, which ui.perfetto.dev (and chrome://tracing) opens.

Made from the case's ``timeline`` in the verdict JSON (:mod:`.timeline`), so the CLI and the
browser (through Pyodide) write the same file. A process per rank; in it a track of waits, and
tracks of sends, receives and collectives as complete (``X``) slices; a flow arrow from each
message's send to its receive, with its bytes, tag and source lines in ``args``. Two clocks,
each its own set of processes:

* **modelled**: the α-β replay's start and end of every transfer and wait at the timeline's
  modelled size (``ts`` in µs, as the format wants; the model's ns kept in ``args``), when the
  case was modelled;
* **steps**: the run's dependency order (one step drawn as :data:`STEP_US` µs), always.

Slices on one track never overlap (each kind of slice is spread over as many tracks as its
overlaps need), so they nest as the format requires.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple, NotRequired, TypedDict

from .schema import CollectiveRow, MessageRow, TimelineJSON, WaitRow

if TYPE_CHECKING:
    from ..contract.verdict_json import CaseResult

#: one dependency step on the ``steps`` clock, in µs
STEP_US = 1.0
#: process ids of a clock's ranks start at this multiple of the clock's index, plus one
PID_STRIDE = 1000
#: flow ids of a clock's messages start at this multiple of the clock's index
FLOW_STRIDE = 1_000_000
#: each kind of slice: its first thread id and its tracks' name
TRACKS = {"wait": (1, "waits"), "send": (100, "sends"), "recv": (200, "receives"),
          "collective": (300, "collectives")}

Span = tuple[float, float]


class Clock(NamedTuple):
    """Where a clock places a transfer (a message or a collective) and a wait: a span, or None
    when it gives it none."""

    transfer: Callable[[MessageRow | CollectiveRow], Span | None]
    wait: Callable[[WaitRow], Span | None]


class ChromeEvent(TypedDict):
    """One Chrome trace event: a complete slice (``X``), a flow's start or end (``s``, ``f``),
    an instant (``i``) or a metadata event naming a process or track (``M``)."""

    ph: str
    name: str
    cat: NotRequired[str]
    pid: int
    tid: int
    ts: NotRequired[float]  # µs; a metadata event has none
    dur: NotRequired[float]
    id: NotRequired[int]  # a flow's
    bp: NotRequired[str]  # a flow end's binding point
    s: NotRequired[str]  # an instant's scope
    args: Mapping[str, object]


class TraceInfo(TypedDict):
    """The trace's ``otherData``: what it shows of which case."""

    title: str
    case: str
    verdict: str
    world_size: int
    clocks: list[str]
    topology: str | None
    modelled_size_bytes: int | None
    cut: dict[str, int] | bool | None


class ChromeTrace(TypedDict):
    """A Chrome trace-event JSON file."""

    traceEvents: list[ChromeEvent]
    displayTimeUnit: str
    otherData: TraceInfo


def _modelled(view: TimelineJSON) -> Clock:
    end = view.get("end_t")

    def span(t0: float | None, t1: float | None) -> Span | None:
        return None if t0 is None or t1 is None else (t0 / 1000, t1 / 1000)
    return Clock(lambda item: span(item.get("t0"), item.get("t1")),
                 lambda w: span(w.get("t0"), w["t1"] if w.get("t1") is not None else end))


def _steps(view: TimelineJSON) -> Clock:
    def wait(w: WaitRow) -> Span:
        s1 = w.get("s1")
        last = view["steps"] if s1 is None else s1
        return w["s0"] * STEP_US, max(last, w["s0"]) * STEP_US
    return Clock(lambda item: ((item["step"] - 1) * STEP_US, item["step"] * STEP_US), wait)


class _Tracks:
    """Slices placed on non-overlapping tracks of their rank and kind."""

    def __init__(self) -> None:
        self.ends: dict[tuple[int, str], list[float]] = {}

    def place(self, pid: int, kind: str, span: Span) -> int:
        """The thread id of the first track of ``kind`` in ``pid`` free at ``span``'s start."""
        ends = self.ends.setdefault((pid, kind), [])
        lane = next((i for i, end in enumerate(ends) if end <= span[0]), len(ends))
        if lane == len(ends):
            ends.append(span[1])
        else:
            ends[lane] = span[1]
        return TRACKS[kind][0] + lane


def _line(line: int | None) -> str:
    return f" (line {line})" if line else ""


#: a slice before it is placed on a track: its span, rank, kind, name and args
_Slice = tuple[Span, int, str, str, dict[str, object]]
#: where each message's send and receive slices went: (kind, message id) -> pid, tid, middle ts
_Placed = dict[tuple[str, int], tuple[int, int, float]]


def _clock_events(view: TimelineJSON, clock: str, when: Clock, index: int) -> list[ChromeEvent]:
    """Every event of one clock: slices, flows, instants and the tracks' names."""
    base = index * PID_STRIDE + 1
    tracks = _Tracks()
    events, placed = _placed_slices(_slices(view, when), base, tracks)
    events += _flows(view, placed, index)
    end = max((e["ts"] + e.get("dur", 0) for e in events), default=0.0)
    events += _instants(view, base, end)
    events.sort(key=lambda e: e["ts"])
    label = "modelled time" if clock == "modelled" else f"dependency steps (1 step = {STEP_US:g} µs)"
    return _track_names(view["world_size"], base, label, tracks) + events


def _slices(view: TimelineJSON, when: Clock) -> list[_Slice]:
    """The slices of one clock: each message's send and receive, each collective's member,
    each wait (what the clock gives no span is left out)."""
    return [*_message_slices(view, when), *_collective_slices(view, when), *_wait_slices(view, when)]


def _message_slices(view: TimelineJSON, when: Clock) -> list[_Slice]:
    """A send slice on the sender and a receive slice on the receiver per message."""
    critical = {(c["kind"], c["id"]) for c in view.get("critical", [])}
    scale = view.get("scale", 1.0)
    slices: list[_Slice] = []
    for m in view["messages"]:
        args: dict[str, object] = {
            "id": m["id"], "bytes": m["bytes"], "modelled_bytes": round(m["bytes"] * scale),
            "tag": m["tag"], "step": m["step"], "line": m["line"], "recv_line": m["recv_line"],
            "critical_path": ("message", m["id"]) in critical,
            **{k: m[k] for k in ("chunk", "group", "t0", "t1") if m.get(k) is not None}}
        if (span := when.transfer(m)) is not None:
            slices.append((span, m["src"], "send", f"send → {m['dst']}", args))
            slices.append((span, m["dst"], "recv", f"recv ← {m['src']}", args))
    return slices


def _collective_slices(view: TimelineJSON, when: Clock) -> list[_Slice]:
    """A slice per member rank of each collective, with that rank's bytes and line."""
    critical = {(c["kind"], c["id"]) for c in view.get("critical", [])}
    slices: list[_Slice] = []
    for c in view["collectives"]:
        if (span := when.transfer(c)) is not None:
            for i, rank in enumerate(c["ranks"]):
                slices.append((span, rank, "collective", c["kind"], {
                    "id": c["id"], "bytes": c["bytes"][i], "ranks": c["ranks"], "root": c["root"],
                    "step": c["step"], "line": c["lines"][i] if c.get("lines") else c["line"],
                    "critical_path": ("collective", c["id"]) in critical}))
    return slices


def _wait_slices(view: TimelineJSON, when: Clock) -> list[_Slice]:
    """A slice per wait on its rank, named for its line (and when it never ends)."""
    slices: list[_Slice] = []
    for w in view["waits"]:
        if (span := when.wait(w)) is not None:
            name = "wait" if w.get("t1") is not None or w.get("s1") is not None else \
                "wait (never ends)"
            slices.append((span, w["rank"], "wait", name + _line(w["line"]),
                           {"line": w["line"], "steps": [w["s0"], w["s1"]]}))
    return slices


def _placed_slices(slices: list[_Slice], base: int, tracks: _Tracks
                   ) -> tuple[list[ChromeEvent], _Placed]:
    """The slices as complete events on their tracks, earliest (then longest) first; and where
    each message's send and receive went."""
    events: list[ChromeEvent] = []
    placed: _Placed = {}
    for span, rank, kind, name, args in sorted(slices, key=lambda s: (s[0][0], -s[0][1])):
        pid = base + rank
        tid = tracks.place(pid, kind, span)
        events.append({"ph": "X", "name": name, "cat": kind, "pid": pid, "tid": tid,
                       "ts": span[0], "dur": span[1] - span[0], "args": args})
        if kind in ("send", "recv") and isinstance(message := args["id"], int):
            placed[(kind, message)] = pid, tid, (span[0] + span[1]) / 2
    return events, placed


def _flows(view: TimelineJSON, placed: _Placed, index: int) -> list[ChromeEvent]:
    """A flow arrow from each placed message's send to its receive."""
    events: list[ChromeEvent] = []
    for m in view["messages"]:
        if ("send", m["id"]) in placed and ("recv", m["id"]) in placed:
            args = {"bytes": m["bytes"], "tag": m["tag"]}
            for ph, side in (("s", "send"), ("f", "recv")):
                pid, tid, ts = placed[(side, m["id"])]
                event: ChromeEvent = {"name": "message", "cat": "message",
                                      "id": index * FLOW_STRIDE + m["id"], "args": args, "ph": ph,
                                      "pid": pid, "tid": tid, "ts": ts}
                if ph == "f":
                    event["bp"] = "e"
                events.append(event)
    return events


def _instants(view: TimelineJSON, base: int, end: float) -> list[ChromeEvent]:
    """At ``end``, an instant per request that never completed and per deadlock edge."""
    events: list[ChromeEvent] = []
    for p in view.get("pending", []):
        events.append({"ph": "i", "s": "t", "name": f"{p['kind']} never completed{_line(p['line'])}",
                       "cat": "pending", "pid": base + p["rank"], "tid": TRACKS["wait"][0],
                       "ts": end, "args": p})
    for d in view.get("deadlock", []):
        events.append({"ph": "i", "s": "t", "name": f"deadlock: waits on rank {d['on']}",
                       "cat": "deadlock", "pid": base + d["rank"], "tid": TRACKS["wait"][0],
                       "ts": end, "args": d})
    return events


def _track_names(world: int, base: int, label: str, tracks: _Tracks) -> list[ChromeEvent]:
    """The metadata events that name and order each rank's process and its tracks."""
    names: list[ChromeEvent] = []
    for rank in range(world):
        pid = base + rank
        names += [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                   "args": {"name": f"rank {rank} · {label}"}},
                  {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                   "args": {"sort_index": pid}}]
        for (p, kind), ends in sorted(tracks.ends.items()):
            if p == pid:
                first, title = TRACKS[kind]
                names += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": first + lane,
                           "args": {"name": title + (f" {lane + 1}" if lane else "")}}
                          for lane in range(len(ends))]
    return names


def chrome_trace(case: CaseResult, title: str = "") -> ChromeTrace:
    """The Chrome trace-event JSON of one case of a verdict (its ``timeline``); ValueError when
    the case has no timeline to export."""
    view = case.get("timeline")
    if not isinstance(view, dict) or "error" in view or "messages" not in view:
        raise ValueError(f"case {case.get('name')!r} has no timeline to export")
    clocks: list[tuple[str, Clock]] = []
    if view.get("modelled") and view.get("end_t") is not None:
        clocks.append(("modelled", _modelled(view)))
    clocks.append(("steps", _steps(view)))
    events = [e for i, (name, when) in enumerate(clocks) for e in _clock_events(view, name, when, i)]
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"title": title or case.get("name", ""), "case": case.get("name"),
                          "verdict": case.get("verdict"), "world_size": view["world_size"],
                          "clocks": [name for name, _ in clocks], "topology": view.get("topology"),
                          "modelled_size_bytes": view.get("size"), "cut": view.get("cut")}}
