"""Each exercise keeps, beside its statement, what each measure it reports costs to fake
(``gaming.md``, issue 35): a table with a row per measure, each naming the test, attack or wrong
file that proves its check (a row for a measure the exercise does not report may say so); the
notes are staff documentation, never published with the exercise."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cjudge.exercise.exercises import Exercise, default_root, is_private, load_exercise, load_exercises

REPO = Path(__file__).resolve().parents[2]
EXERCISES = {i: ex for i, ex in load_exercises(default_root()).items() if not ex.draft}
HEADER = "| measure | cheapest fake | what stops it | proof |"
#: the measures a row may name (one that an exercise does not report may say so)
MEASURES = {"correctness", "bytes", "messages", "modelled time", "compute", "memory"}


def measures(ex: Exercise) -> set[str]:
    """What the exercise's verdict reports and a board or a bound reads."""
    found = {"correctness", "bytes", "modelled time"}
    if ex.messages is not None:
        found.add("messages")
    if ex.model.compute is not None:
        found.add("compute")
    if getattr(ex.grader, "memory", None) is not None:
        found.add("memory")
    return found


def rows(text: str) -> list[list[str]]:
    """The cells of each row of the table under :data:`HEADER`."""
    lines = text.splitlines()
    assert HEADER in lines, f"no table headed {HEADER!r}"
    table = []
    for line in lines[lines.index(HEADER) + 2:]:
        if not line.startswith("|"):
            break
        table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return table


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_every_measure_has_its_fake_its_check_and_its_proof(exercise_id: str) -> None:
    notes = EXERCISES[exercise_id].path / "gaming.md"
    assert notes.is_file(), f"{exercise_id} has no gaming.md"
    table = rows(notes.read_text(encoding="utf-8"))
    assert all(len(row) == 4 and all(row) for row in table), table
    named = [row[0] for row in table]
    assert len(set(named)) == len(named) and set(named) <= MEASURES, named
    reported = measures(EXERCISES[exercise_id])
    assert reported <= set(named), named
    for row in table:
        proofs = re.findall(r"`((?:tests|exercises)/[^`:]+)", row[3])
        assert proofs or row[0] not in reported, \
            f"{exercise_id}, {row[0]}: the proof names no test, attack or wrong file"
        missing = [p for p in proofs if not list(REPO.glob(p))]
        assert missing == [], f"{exercise_id}, {row[0]}: no such file {missing}"


def test_the_notes_are_never_published(tmp_path: Path) -> None:
    folder = tmp_path / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = load_exercise(folder).content_hash
    (folder / "gaming.md").write_text("| measure | cheapest fake | what stops it | proof |\n")
    assert is_private(Path("gaming.md"))  # the browser's wheel and the course bundles skip it
    assert load_exercise(folder).content_hash == before
