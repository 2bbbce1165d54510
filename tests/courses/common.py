"""What the bundle tests share: the exercise they grade, its reference and a wrong file, and
``judge.py export``."""

from __future__ import annotations

from pathlib import Path

from cjudge.exercise.exercises import default_root
from tests.cli.test_cli import judge_cli

EXERCISE = "allreduce-compose"
SOLUTION = default_root() / EXERCISE / "solution.py"
#: fails the cases whose size n does not divide, passes the others: a partial score
WRONG = default_root() / EXERCISE / "wrong" / "no_padding.py"


def export(platform: str, out: Path, *options: str) -> Path:
    """``judge.py export PLATFORM EXERCISE out OPTIONS…``; ``out``."""
    run = judge_cli("export", platform, EXERCISE, str(out), *options)
    assert run.returncode == 0, run.stderr
    return out
