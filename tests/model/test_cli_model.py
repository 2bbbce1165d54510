"""``judge.py model`` and the modelled column of ``judge.py test``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cjudge.cli.render import case_line, modelled

REPO = Path(__file__).resolve().parents[2]


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI, piped at 200 columns: wide enough for the table's column per algorithm."""
    return subprocess.run([sys.executable, str(REPO / "practice" / "judge.py"), *args],
                          capture_output=True, text=True, timeout=120, cwd=REPO,
                          env={**os.environ, "COLUMNS": "200"})


def test_model_sweep_table_and_crossing(tmp_path):
    chart = tmp_path / "model.svg"
    out = judge("model", "ring-allreduce", "--sizes", "4KiB,1MB,1GB", "--chart", str(chart))
    assert out.returncode == 0, out.stderr
    assert "ring (14 steps): time" in out.stdout
    assert "73.9 µs" in out.stdout and "3.96 ms" in out.stdout and "21.7 µs" in out.stdout
    assert "ring and recursive doubling cross at 19.8 MB." in out.stdout
    assert chart.read_text().startswith("<?xml")


def test_model_json_two_nodes():
    out = judge("model", "ring-allreduce", "--topology", "h100x8x2", "--ranks", "16",
                "--sizes", "1GB", "--json", "--no-chart")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    times = {s["label"]: s["rows"][0]["time_s"] for s in doc["series"]}
    assert abs(times["ring"] - 37.65e-3) < 37.65e-6
    assert abs(times["hierarchical"] - 6.47e-3) < 6.47e-6


def test_model_bad_arguments_exit_2():
    assert judge("model", "ring-allreduce", "--topology", "nope", "--no-chart").returncode == 2
    assert judge("model", "ring-allreduce", "--sizes", "lots", "--no-chart").returncode == 2


def test_test_table_shows_modelled_times():
    case = {"name": "8-ranks", "world_size": 8, "verdict": "accepted", "bytes_sent": [1, 2],
            "bytes_bound": 3, "wall_ms": 40.0,
            "model": {"sizes": [{"size": 10**6, "time_s": 73.889e-6, "bound_s": 73.889e-6}]}}
    assert modelled(case) == "1 MB 73.9 µs (bound 73.9 µs)"
    assert case_line(case).endswith("modelled 1 MB 73.9 µs (bound 73.9 µs)")
    assert "modelled" not in case_line({**case, "model": None})
