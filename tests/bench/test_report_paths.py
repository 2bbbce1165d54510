"""A bench report names the learner's file as the command line could: relative to the working
directory when under it, so a report (or the docs' example) carries no folder of the machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.bench.report import shown_path


def test_a_file_under_the_working_directory_is_named_from_it(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert shown_path(str(tmp_path / "exercises" / "ring" / "solution.py")) == \
        "exercises/ring/solution.py"


def test_a_file_elsewhere_keeps_its_whole_path(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    elsewhere = str(tmp_path / "there" / "mine.py")
    assert shown_path(elsewhere) == elsewhere
    assert shown_path(str(tmp_path / "here" / "..x" / "f.py")) == "..x/f.py"  # a name, not ..
