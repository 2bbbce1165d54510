"""Running ``bench`` in this process (its ranks are forked from it) and reading what it wrote."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cjudge.bench.cli import main

#: small and quick: two sizes, two timed iterations, two ranks
QUICK = ["-b", "1K", "-e", "2K", "-n", "2", "-w", "1", "--nproc", "2", "--backend", "gloo"]


@dataclass
class BenchRun:
    """Exit status, what went to stdout and stderr, and the JSON document."""

    code: int
    stdout: str
    stderr: str
    doc: dict[str, Any] | None
    json_path: Path
    chart_path: Path


def run_bench(tmp_path: Path, *args: str) -> BenchRun:
    """``judge.py bench ARGS`` with the JSON and the chart in ``tmp_path``."""
    json_path, chart_path = tmp_path / "bench.json", tmp_path / "bench.svg"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "-J", str(json_path), "--chart", str(chart_path)])
    doc = json.loads(json_path.read_text()) if json_path.exists() else None
    return BenchRun(code, out.getvalue(), err.getvalue(), doc, json_path, chart_path)


def table_rows(stdout: str) -> list[list[str]]:
    """The body rows of the plain (nccl-tests) tables, split into cells."""
    return [line.split() for line in stdout.splitlines() if line.strip() and not line.startswith("#")]
