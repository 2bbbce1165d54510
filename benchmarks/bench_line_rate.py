"""Benchmark: a learner's ring against gloo's all_reduce at line rate (issue 37, goal ≥ 80 %).

    .venv/bin/python benchmarks/bench_line_rate.py [--size 64M] [--iters 10] [FILE ...]

Runs ``judge.py bench ring-allreduce`` on 2 ranks (gloo) at one size for the reference and for
each FILE given (e.g. a segmented, pipelined ring), and prints each one's bus bandwidth over
gloo's ``all_reduce`` measured in the same run (mean and median iterations).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.bench.cli import main as bench  # noqa: E402


def ratio(file: Path, size: str, iters: int) -> dict:
    """The bench document's comparison row for ``file`` at ``size``."""
    with tempfile.TemporaryDirectory() as out:
        args = ["ring-allreduce", str(file), "-b", size, "-e", size, "-n", str(iters),
                "--nproc", "2", "--backend", "gloo", "--no-chart", "--out", out]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = bench(args)
        doc = json.loads(next(Path(out).glob("*.json")).read_text(encoding="utf-8"))
    if code != 0 or not doc["comparison"]:
        raise SystemExit(f"bench failed for {file}: exit {code}, {doc.get('message')}")
    return doc["comparison"][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="64M", help="message size (64M)")
    parser.add_argument("--iters", type=int, default=10, help="timed iterations (10)")
    parser.add_argument("files", nargs="*", type=Path, help="learner files besides the reference")
    args = parser.parse_args()
    print(f"{'file':<40} {'builtin busbw':>13} {'learner busbw':>13} {'ratio':>7} {'median':>7}")
    for file in [ROOT / "exercises" / "ring-allreduce" / "solution.py", *args.files]:
        row = ratio(file, args.size, args.iters)
        print(f"{file.name:<40} {row['builtin_busbw']:>13.3f} {row['learner_busbw']:>13.3f} "
              f"{100 * row['ratio']:>6.1f}% {100 * row['ratio_median']:>6.1f}%")


if __name__ == "__main__":
    main()
