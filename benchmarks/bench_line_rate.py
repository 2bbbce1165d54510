"""Benchmark: a learner's ring against gloo's all_reduce at line rate (issue 37, goal ≥ 80 %).

    .venv/bin/python benchmarks/bench_line_rate.py [--size 64M] [--iters 10] [--repeat 5] [FILE ...]

Runs ``judge.py bench ring-allreduce`` on 2 ranks (gloo) at one size for the reference and for
each FILE given (e.g. a ring that sends each chunk whole), and prints each one's bus bandwidth
over gloo's ``all_reduce`` measured in the same run (mean and median iterations). Each file is
benched ``--repeat`` times, files taking turns, and its row gives the medians over the runs (on a
busy machine one run can be far off), then every run's ratio.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.bench.cli import main as bench  # noqa: E402


def ratio(file: Path, size: str, iters: int) -> dict[str, Any]:
    """The bench document's comparison row for ``file`` at ``size``."""
    with tempfile.TemporaryDirectory() as out:
        args = ["ring-allreduce", str(file), "-b", size, "-e", size, "-n", str(iters),
                "--nproc", "2", "--backend", "gloo", "--no-chart", "--out", out]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = bench(args)
        doc = json.loads(next(Path(out).glob("*.json")).read_text(encoding="utf-8"))
    if code != 0 or not doc["comparison"]:
        raise SystemExit(f"bench failed for {file}: exit {code}, {doc.get('message')}")
    row: dict[str, Any] = doc["comparison"][0]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64M", help="message size (64M)")
    parser.add_argument("--iters", type=int, default=10, help="timed iterations (10)")
    parser.add_argument("--repeat", type=int, default=5, help="bench runs per file (5)")
    parser.add_argument("files", nargs="*", type=Path, help="learner files besides the reference")
    args = parser.parse_args()
    files = [ROOT / "exercises" / "ring-allreduce" / "solution.py", *args.files]
    runs: dict[Path, list[dict[str, Any]]] = {file: [] for file in files}
    for _ in range(args.repeat):
        for file in files:  # taking turns: every file sees the machine's moods alike
            runs[file].append(ratio(file, args.size, args.iters))
    print(f"{'file':<32} {'builtin busbw':>13} {'learner busbw':>13} {'ratio':>7} {'median':>7}"
          "  every run's ratio")
    for file, rows in runs.items():
        def mid(key: str, rows: list[dict[str, Any]] = rows) -> float:
            return float(statistics.median(row[key] for row in rows))
        each = " ".join(f"{100 * row['ratio']:.1f}%" for row in rows)
        print(f"{file.name:<32} {mid('builtin_busbw'):>13.3f} {mid('learner_busbw'):>13.3f} "
              f"{100 * mid('ratio'):>6.1f}% {100 * mid('ratio_median'):>6.1f}%  {each}")


if __name__ == "__main__":
    main()
