"""``cjudge.view.perfetto``: a case as Chrome trace-event JSON, checked against the format's rules
(what ui.perfetto.dev and chrome://tracing need to draw it)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cjudge.view.perfetto import chrome_trace

from .helpers import graded


def format_problems(trace: dict) -> list[str]:
    """Where ``trace`` breaks the trace-event format's rules: B/E pairs per track, X slices
    nested per track, s/f flows paired by id, timestamps non-decreasing per track."""
    problems: list[str] = []
    events = trace["traceEvents"]
    tracks: dict[tuple[int, int], list[dict]] = {}
    for e in events:
        if e["ph"] != "M":
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    for track, evs in tracks.items():
        times = [e["ts"] for e in evs]
        if times != sorted(times):
            problems.append(f"{track}: timestamps go back")
        open_b: list[dict] = []
        stack: list[float] = []  # ends of the enclosing X slices
        for e in evs:
            if e["ph"] == "B":
                open_b.append(e)
            elif e["ph"] == "E" and not open_b:
                problems.append(f"{track}: E without B at {e['ts']}")
            elif e["ph"] == "E":
                open_b.pop()
            elif e["ph"] == "X":
                if e["dur"] < 0:
                    problems.append(f"{track}: negative duration")
                while stack and stack[-1] <= e["ts"]:
                    stack.pop()
                if stack and e["ts"] + e["dur"] > stack[-1] + 1e-9:
                    problems.append(f"{track}: {e['name']} at {e['ts']} overlaps its parent")
                stack.append(e["ts"] + e["dur"])
        problems += [f"{track}: B without E at {e['ts']}" for e in open_b]
    flows = Counter((e["ph"], e["id"]) for e in events if e["ph"] in ("s", "f"))
    ids = {i for _, i in flows}
    problems += [f"flow {i} not one s and one f" for i in ids
                 if flows[("s", i)] != 1 or flows[("f", i)] != 1]
    for e in events:  # each flow end lies in a slice of its track
        if e["ph"] in ("s", "f") and not any(
                x["ph"] == "X" and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]
                for x in tracks[(e["pid"], e["tid"])]):
            problems.append(f"flow {e['id']} {e['ph']} outside any slice")
    return problems


def test_the_rule_checker_catches_broken_traces():
    x = {"ph": "X", "pid": 1, "tid": 1, "name": "a", "args": {}}
    assert format_problems({"traceEvents": [{**x, "ts": 0, "dur": 5}, {**x, "ts": 3, "dur": 5}]})
    assert format_problems({"traceEvents": [{**x, "ph": "B", "ts": 0}]})
    assert format_problems({"traceEvents": [{**x, "ts": 0, "dur": 1},
                                            {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 0}]})
    assert format_problems({"traceEvents": [{**x, "ts": 2, "dur": 1}, {**x, "ts": 0, "dur": 1}]})


def test_ring_on_8_ranks_has_both_clocks_a_process_per_rank_and_a_flow_per_message():
    case = graded("ring-allreduce", "solution.py", 8)
    trace = json.loads(json.dumps(chrome_trace(case, "ring")))
    assert format_problems(trace) == []
    events = trace["traceEvents"]
    names = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert {f"rank {r} · modelled time" for r in range(8)} <= names
    assert sum("dependency steps" in n for n in names) == 8
    assert trace["otherData"]["clocks"] == ["modelled", "steps"]
    sends = [e for e in events if e["ph"] == "X" and e["cat"] == "send"]
    assert len(sends) == 2 * 8 * 14  # 112 messages on each clock
    modelled = [e for e in sends if e["pid"] <= 8]
    # the modelled clock ends where the ring's closed form does (1 MB: 73.89 µs)
    assert max(e["ts"] + e["dur"] for e in modelled) == pytest.approx(73.89, rel=1e-3)
    assert all(e["args"]["bytes"] > 0 and "tag" in e["args"] for e in sends)
    flows = [e for e in events if e["ph"] == "s"]
    assert len(flows) == len(sends) and all(e["args"]["bytes"] > 0 for e in flows)
    assert sum(e["ph"] == "X" and e["cat"] == "wait" for e in events) > 0


def test_deadlock_and_collectives_export_too():
    dead = chrome_trace(graded("ring-allreduce", "wrong/recv_before_send.py"))
    assert format_problems(dead) == []
    marks = [e for e in dead["traceEvents"] if e.get("cat") == "deadlock"]
    assert {(e["pid"], e["args"]["on"]) for e in marks if e["pid"] <= 4} == \
        {(r + 1, (r - 1) % 4) for r in range(4)}
    band = chrome_trace(graded("alltoall-transpose", "solution.py", 4))
    assert format_problems(band) == []
    assert sum(e["ph"] == "X" and e["name"] == "all_to_all" for e in band["traceEvents"]) == 8


def test_a_case_without_a_timeline_is_refused():
    with pytest.raises(ValueError, match="no timeline"):
        chrome_trace({"name": "x", "timeline": {"version": 1, "error": "boom"}})


def test_the_committed_example_is_what_its_script_writes(tmp_path):
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "ring.json"
    subprocess.run([sys.executable, str(root / "scripts/perfetto_example.py"), str(out)],
                   check=True, capture_output=True, timeout=300)
    committed = json.loads((root / "docs/perfetto/ring-allreduce-8-ranks.json").read_text())
    assert format_problems(committed) == []

    def slices(trace: dict) -> Counter:  # message ids follow the threads' interleaving: not these
        return Counter((e["ph"], e["name"], e["pid"], round(e["ts"], 6), round(e.get("dur", 0), 6))
                       for e in trace["traceEvents"] if e["ph"] != "M")

    assert slices(json.loads(out.read_text())) == slices(committed)
