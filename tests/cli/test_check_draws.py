"""``check`` judges every file under more draws than the exercise's seed, and a file whose
verdict depends on the draw is a MISMATCH that names the seed (issue 35)."""

from __future__ import annotations

import io
import shutil
import textwrap
from pathlib import Path

import pytest
from rich.console import Console

from cjudge.cli import commands
from cjudge.exercise.exercises import default_root, load_exercise
from cjudge.sim.runtime import run_case

#: the reference, zeroed where one drawn value of one case is positive: wrong in some draws only
SOMETIMES_WRONG = textwrap.dedent("""\
    _ring = ring_all_reduce


    def ring_all_reduce(t):
        wrong = t.numel() == 1000 and dist.get_rank() == 0 and float(t[0]) > 0
        _ring(t)
        if wrong:
            t.zero_()
    """)


def test_a_file_right_in_some_draws_is_a_mismatch_naming_the_seed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", folder,
                    ignore=shutil.ignore_patterns("__pycache__", "wrong"))
    (folder / "wrong").mkdir()
    (folder / "wrong" / "sometimes.py").write_text(
        "# expect: wrong_answer\n" + (folder / "solution.py").read_text() + "\n\n" + SOMETIMES_WRONG)
    # the simulation stands in for real torch too: the draws are what is under test
    monkeypatch.setattr(commands, "_run_case_for", lambda launcher: run_case)
    out = io.StringIO()
    rows = commands.check_exercise(load_exercise(folder), "fork", Console(file=out, width=200))
    text = out.getvalue()
    assert "the simulation at 12 more draws, seeds 20261130–20261141" in text
    row = next(r for r in rows if r["file"] == "wrong/sometimes.py")
    assert not row["ok"] and "sim seed 2026113" in row["got"] and " of 12 draws" in row["got"]
    assert "accepted" in row["got"]
    assert "wrong/sometimes.py: expected wrong_answer" in text and text.count("MISMATCH") == 1
