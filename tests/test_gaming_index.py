"""docs/gaming.md is the index of every exercise's gaming notes, written by
``scripts/gaming_index.py``: it lists every exercise and each open hole its notes declare, and the
committed page is what the script writes today."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.script_loader import load_script

REPO = Path(__file__).resolve().parents[1]


def test_the_committed_page_is_the_scripts_output() -> None:
    page = (REPO / "docs" / "gaming.md").read_text(encoding="utf-8")
    assert page == load_script("gaming_index").render()


def test_a_declared_hole_reaches_the_index(tmp_path: Path) -> None:
    folder = tmp_path / "exercises" / "demo"
    folder.mkdir(parents=True)
    shutil.copy(REPO / "exercises" / "ring-allreduce" / "gaming.md", folder / "gaming.md")
    with (folder / "gaming.md").open("a", encoding="utf-8") as notes:
        notes.write("\n**Open hole: tags carry the data.** Nothing charges them.\n")
    page = load_script("gaming_index").render(tmp_path)
    row = next(line for line in page.splitlines() if line.startswith("| [demo]"))
    assert "open hole: tags carry the data" in row
    assert "correctness, bytes, messages, modelled time" in row
