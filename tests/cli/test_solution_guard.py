"""``judge.py solution ID`` at a terminal asks before it shows the reference of an exercise the
workspace has not passed; once passed, or piped (scripts), it prints at once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cjudge.cli import commands, workspace
from cjudge.exercise.exercises import load_exercise

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = load_exercise(ROOT / "exercises" / "ring-allreduce")


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def solution(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, answer: str | None,
             passed: bool) -> tuple[str, str]:
    """What ``solution`` prints (stdout, stderr) with ``answer`` typed at a terminal (None: piped)."""
    monkeypatch.setenv(workspace.ENV, str(tmp_path))
    if passed:
        workspace.remember(EXERCISE.id, "accepted")
    out, err = io.StringIO(), Terminal() if answer is not None else io.StringIO()
    monkeypatch.setattr("sys.stdin", Terminal(answer + "\n") if answer is not None
                        else io.StringIO(""))
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    assert commands.cmd_solution(EXERCISE) == 0
    return out.getvalue(), err.getvalue()


def test_not_passed_it_asks_and_no_keeps_the_solution(monkeypatch, tmp_path) -> None:
    out, err = solution(monkeypatch, tmp_path, "", passed=False)
    assert out == "" and "You have not passed ring-allreduce yet" in err and "[y/N]" in err
    out, _ = solution(monkeypatch, tmp_path, "n", passed=False)
    assert out == ""


def test_yes_shows_it(monkeypatch, tmp_path) -> None:
    out, _ = solution(monkeypatch, tmp_path, "y", passed=False)
    assert out == EXERCISE.solution


def test_passed_or_piped_it_prints_without_asking(monkeypatch, tmp_path) -> None:
    assert solution(monkeypatch, tmp_path, "", passed=True) == (EXERCISE.solution, "")
    assert solution(monkeypatch, tmp_path / "fresh", None, passed=False) == (EXERCISE.solution, "")
