"""``judge.py test … --trace`` and ``--svg``: the rank × step table and the standalone SVG."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cjudge.cli.trace_view import cells, notes, pick_case, svg

from .helpers import graded

ROOT = Path(__file__).resolve().parents[2]
NS = "{http://www.w3.org/2000/svg}"


def groups(doc: str, cls: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(doc).iter(f"{NS}g") if g.get("class") == cls]


def test_table_is_rank_by_step_with_destination_bytes_and_chunk():
    case = graded("ring-allreduce", "solution.py", 8)
    header, rows = cells(case["timeline"])
    assert header == ["rank", *(f"step {s}" for s in range(1, 15))]
    # 1000 float32 in 8 chunks of 125; rank 3 sends chunk 3, then the one it received: 2, 1, …
    assert rows[3][1:] == [f"→4 500B c{(3 - s) % 8}" for s in range(14)]
    assert notes(case["timeline"])[0] == "modelled time 73.9 µs on h100x8 at S = 1 MB"


def test_svg_draws_every_message_with_its_details():
    case = graded("ring-allreduce", "solution.py", 8)
    doc = svg(case["timeline"], "ring")
    arrows = groups(doc, "msg")
    assert len(arrows) == 8 * 14
    tip = arrows[0].find(f"{NS}title").text
    assert tip.startswith("rank 0 → rank 1: 500 B, tag 0, sent at line ") and "µs" in tip


def test_svg_of_a_deadlock_has_its_red_wait_for_edges():
    case = graded("ring-allreduce", "wrong/recv_before_send.py")
    doc = svg(case["timeline"], "deadlock")
    edges = groups(doc, "deadlock")
    assert len(edges) == 4
    assert all(e.find(f"{NS}path").get("stroke") == "#D55E00" for e in edges)
    assert "rank 0 waits on rank 3 in recv (line 14)" in [e.find(f"{NS}title").text for e in edges]
    header, rows = cells(case["timeline"])
    assert header[-1] == "deadlock" and rows[0][-1] == "waits on 3 in recv (line 14)"


def test_svg_marks_the_wrong_chunk_and_the_too_slow_critical_path():
    wrong = graded("ring-allreduce", "wrong/allgather_one_step_short.py")
    mark = groups(svg(wrong["timeline"]), "wrong")
    assert len(mark) == 1 and "chunk 2" in "".join(mark[0].itertext())
    slow = graded("ring-allreduce", "wrong/halves_every_step.py", 8)
    thick = [g for g in groups(svg(slow["timeline"]), "msg")
             if g.find(f"{NS}line").get("stroke-width") == "3"]
    assert len(thick) == 28
    assert pick_case({"cases": [slow, wrong]}) is slow


def test_cli_prints_the_table_and_writes_the_svg(tmp_path):
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    (exercises / "ring-allreduce").symlink_to(ROOT / "exercises" / "ring-allreduce")
    out = tmp_path / "run.svg"
    run = subprocess.run(
        [sys.executable, str(ROOT / "practice" / "judge.py"), "test", "ring-allreduce",
         "exercises/ring-allreduce/wrong/recv_before_send.py", "--exercises", str(exercises),
         "--trace", "--svg", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "CJUDGE_WORKSPACE": str(tmp_path / "ws")})
    assert run.returncode == 1, run.stderr
    assert "rank  step 1  deadlock" in run.stdout
    assert "0     ·       waits on 3 in recv (line 14)" in run.stdout
    assert len(groups(out.read_text(encoding="utf-8"), "deadlock")) == 4
