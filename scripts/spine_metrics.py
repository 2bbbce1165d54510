#!/usr/bin/env python3
"""Print the kernel's shape as issue 36 ("One spine for a case") measures it.

    .venv/bin/python scripts/spine_metrics.py [--list]

Counts, each against the issue's goal: functions over 50 lines in the kernel and the server
(goal ≤ 5), ``dict[str, Any]`` annotations in the kernel (≤ 5), modules loose at the kernel's
top level (≤ 6) and the kernel's, server's and browser's modules that read ``time_limit_s``
(≤ 2), and of those the modules that read a job's limit (``job["time_limit_s"]``) to decide when
a case ends. ``--list`` names the long functions, longest first.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL = ROOT / "practice" / "cjudge"
LONG = 50


def long_functions() -> list[tuple[int, str]]:
    """(lines, place) of every function over :data:`LONG` lines in the kernel and the server."""
    found = []
    for folder in (KERNEL, ROOT / "server"):
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > LONG:
                        found.append((lines, f"{path.relative_to(ROOT)}:{node.name}"))
    return sorted(found, reverse=True)


def reads_a_jobs_limit(path: Path) -> bool:
    """Whether the module subscripts a ``time_limit_s`` out of a mapping (a job's limit)."""
    return any(isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
               and node.slice.value == "time_limit_s"
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


def main() -> int:
    """Print the counts (and with ``--list`` the long functions)."""
    long = long_functions()
    loose = [p for p in KERNEL.glob("*.py") if p.name != "__init__.py"]
    untyped = sum(p.read_text(encoding="utf-8").count("dict[str, Any]")
                  for p in KERNEL.rglob("*.py"))
    readers = [p for folder in (KERNEL, ROOT / "server", ROOT / "web" / "src")
               for p in folder.rglob("*.py") if "time_limit_s" in p.read_text(encoding="utf-8")]
    print(f"functions over {LONG} lines (kernel, server): {len(long)} (goal ≤ 5)")
    print(f"dict[str, Any] in the kernel: {untyped} (goal ≤ 5)")
    print(f"modules loose at the kernel's top level: {len(loose)} (goal ≤ 6)")
    print(f"modules that read time_limit_s: {len(readers)} (goal ≤ 2)")
    deciders = [p.relative_to(ROOT).as_posix() for p in readers if reads_a_jobs_limit(p)]
    print(f"  of them, reading a job's limit: {len(deciders)} ({', '.join(deciders)})")
    if "--list" in sys.argv[1:]:
        for lines, place in long:
            print(f"  {lines:4d}  {place}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
