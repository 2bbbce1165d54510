#!/usr/bin/env python3
"""``mypy --strict`` over every exercise's grader, one checker call per grader (each is a module
named ``grader``, so one call over all of them would see the same module twice). The kernel the
graders import is checked by ``mypy`` with the project's configuration; here its errors are not
reported again (``--follow-imports=silent``), only the graders'.

    .venv/bin/python scripts/mypy_graders.py [GRADER ...]   # exit 1 if any grader has errors
"""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = ["--strict", "--follow-imports=silent", "--no-error-summary"]


def check(grader: Path) -> str:
    """mypy's report of ``grader`` (empty when it has no errors)."""
    out, err, status = api.run([*OPTIONS, str(grader)])
    return "" if status == 0 else (out + err or f"{grader}: mypy exited {status}\n")


def main() -> None:
    graders = [Path(a) for a in sys.argv[1:]] or sorted((ROOT / "exercises").glob("*/grader.py"))
    reports = [check(g) for g in graders]
    print("".join(reports), end="")
    failed = sum(1 for r in reports if r)
    print(f"mypy --strict: {len(graders) - failed} of {len(graders)} graders clean")
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
