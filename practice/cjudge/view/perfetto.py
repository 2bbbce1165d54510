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

from collections.abc import Callable
from typing import Any

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
#: a case's ``timeline`` as JSON (:class:`.schema.TimelineJSON`), as the CLI or the browser gives it
View = dict[str, Any]
#: one Chrome trace event
Event = dict[str, Any]
Clock = Callable[[dict[str, Any], str], Span | None]


def _modelled(view: View) -> Clock:
    end = view.get("end_t")

    def when(item: dict[str, Any], kind: str) -> Span | None:
        t0 = item.get("t0")
        t1 = item.get("t1") if item.get("t1") is not None else end if kind == "wait" else None
        return None if t0 is None or t1 is None else (t0 / 1000, t1 / 1000)
    return when


def _steps(view: View) -> Clock:
    def when(item: dict[str, Any], kind: str) -> Span | None:
        if kind == "wait":
            s1 = item["s1"] if item.get("s1") is not None else view["steps"]
            return item["s0"] * STEP_US, max(s1, item["s0"]) * STEP_US
        return (item["step"] - 1) * STEP_US, item["step"] * STEP_US
    return when


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
_Slice = tuple[Span, int, str, str, dict[str, Any]]
#: where each message's send and receive slices went: (kind, message id) -> pid, tid, middle ts
_Placed = dict[tuple[str, int], tuple[int, int, float]]


def _clock_events(view: View, clock: str, when: Clock, index: int) -> list[Event]:
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


def _slices(view: View, when: Clock) -> list[_Slice]:
    """The slices of one clock: each message's send and receive, each collective's member,
    each wait (what the clock gives no span is left out)."""
    return [*_message_slices(view, when), *_collective_slices(view, when), *_wait_slices(view, when)]


def _message_slices(view: View, when: Clock) -> list[_Slice]:
    """A send slice on the sender and a receive slice on the receiver per message."""
    critical = {(c["kind"], c["id"]) for c in view.get("critical", [])}
    scale = view.get("scale", 1.0)
    slices: list[_Slice] = []
    for m in view["messages"]:
        args = {"id": m["id"], "bytes": m["bytes"], "modelled_bytes": round(m["bytes"] * scale),
                "tag": m["tag"], "step": m["step"],
                "line": m["line"], "recv_line": m["recv_line"],
                "critical_path": ("message", m["id"]) in critical,
                **{k: m[k] for k in ("chunk", "group", "t0", "t1") if m.get(k) is not None}}
        if (span := when(m, "message")) is not None:
            slices.append((span, m["src"], "send", f"send → {m['dst']}", args))
            slices.append((span, m["dst"], "recv", f"recv ← {m['src']}", args))
    return slices


def _collective_slices(view: View, when: Clock) -> list[_Slice]:
    """A slice per member rank of each collective, with that rank's bytes and line."""
    critical = {(c["kind"], c["id"]) for c in view.get("critical", [])}
    slices: list[_Slice] = []
    for c in view["collectives"]:
        if (span := when(c, "collective")) is not None:
            for i, rank in enumerate(c["ranks"]):
                slices.append((span, rank, "collective", c["kind"], {
                    "id": c["id"], "bytes": c["bytes"][i], "ranks": c["ranks"], "root": c["root"],
                    "step": c["step"], "line": c["lines"][i] if c.get("lines") else c["line"],
                    "critical_path": ("collective", c["id"]) in critical}))
    return slices


def _wait_slices(view: View, when: Clock) -> list[_Slice]:
    """A slice per wait on its rank, named for its line (and when it never ends)."""
    slices: list[_Slice] = []
    for w in view["waits"]:
        if (span := when(w, "wait")) is not None:
            name = "wait" if w.get("t1") is not None or w.get("s1") is not None else \
                "wait (never ends)"
            slices.append((span, w["rank"], "wait", name + _line(w["line"]),
                           {"line": w["line"], "steps": [w["s0"], w["s1"]]}))
    return slices


def _placed_slices(slices: list[_Slice], base: int, tracks: _Tracks
                   ) -> tuple[list[Event], _Placed]:
    """The slices as complete events on their tracks, earliest (then longest) first; and where
    each message's send and receive went."""
    events: list[Event] = []
    placed: _Placed = {}
    for span, rank, kind, name, args in sorted(slices, key=lambda s: (s[0][0], -s[0][1])):
        pid = base + rank
        tid = tracks.place(pid, kind, span)
        events.append({"ph": "X", "name": name, "cat": kind, "pid": pid, "tid": tid,
                       "ts": span[0], "dur": span[1] - span[0], "args": args})
        if kind in ("send", "recv"):
            placed[(kind, args["id"])] = pid, tid, (span[0] + span[1]) / 2
    return events, placed


def _flows(view: View, placed: _Placed, index: int) -> list[Event]:
    """A flow arrow from each placed message's send to its receive."""
    events: list[Event] = []
    for m in view["messages"]:
        if ("send", m["id"]) in placed and ("recv", m["id"]) in placed:
            flow = {"name": "message", "cat": "message", "id": index * FLOW_STRIDE + m["id"],
                    "args": {"bytes": m["bytes"], "tag": m["tag"]}}
            for ph, side in (("s", "send"), ("f", "recv")):
                pid, tid, ts = placed[(side, m["id"])]
                events.append({**flow, "ph": ph, "pid": pid, "tid": tid, "ts": ts,
                               **({"bp": "e"} if ph == "f" else {})})
    return events


def _instants(view: View, base: int, end: float) -> list[Event]:
    """At ``end``, an instant per request that never completed and per deadlock edge."""
    events: list[Event] = []
    for p in view.get("pending", []):
        events.append({"ph": "i", "s": "t", "name": f"{p['kind']} never completed{_line(p['line'])}",
                       "cat": "pending", "pid": base + p["rank"], "tid": TRACKS["wait"][0],
                       "ts": end, "args": p})
    for d in view.get("deadlock", []):
        events.append({"ph": "i", "s": "t", "name": f"deadlock: waits on rank {d['on']}",
                       "cat": "deadlock", "pid": base + d["rank"], "tid": TRACKS["wait"][0],
                       "ts": end, "args": d})
    return events


def _track_names(world: int, base: int, label: str, tracks: _Tracks) -> list[Event]:
    """The metadata events that name and order each rank's process and its tracks."""
    names: list[Event] = []
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


def chrome_trace(case: dict[str, Any], title: str = "") -> dict[str, Any]:
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
