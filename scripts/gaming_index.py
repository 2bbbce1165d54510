#!/usr/bin/env python3
"""Write ``docs/gaming.md``: what each measure the judge reports costs to fake, exercise by
exercise, gathered from every exercise's private ``gaming.md`` (their tables stay the source;
this page is their index, so it never drifts from them).

    .venv/bin/python scripts/gaming_index.py          # write docs/gaming.md
    .venv/bin/python scripts/gaming_index.py --check  # exit 1 if docs/gaming.md is stale
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generated import write_or_check  # noqa: E402  # beside this script

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "gaming.md"
HEADER = "| measure | cheapest fake | what stops it | proof |"

INTRO = """\
# What each measure costs to fake

Written by `scripts/gaming_index.py` from each exercise's `exercises/<id>/gaming.md` (staff notes,
never published); edit those, then run the script.

A number the judge reports is worth what it costs to improve without doing the work. For every
measure (correctness, bytes, messages, modelled time, compute, memory) each exercise keeps the
cheapest fake found and the check that stops it, with the test or attack file that proves the
check. The mechanisms they share:

* **One graded epoch**: nothing posted before a rank's `begin` meets a graded request, so
  module-level traffic can neither carry case data nor fall out of the model.
* **Payload charged at the case dtype**: a floating-point or integer payload narrower than the
  case's elements is charged at their width (`payload_bytes = "as-sent"` only where compression
  is the lesson); **inputs carry low bits** no narrower float holds, so a lossy down-cast,
  however packed, is a wrong answer.
* **Bounds and floors**: bytes and messages per rank, a time bound, and a floor below which a run
  is never ranked (the judge checking itself).
* **Provenance of judge functions**: what crosses a judge function's boundary must be that
  function's output, each call is given what the algorithm would give it, every call is counted,
  and an input is released only when the algorithm would have it.
* **Bounded work**: a judge function's cost is bounded before it runs and the deadline checked
  inside long work; groups are indexed, and count toward the request cap; memory counts never go
  below zero.
* **Draws as strong as each other**: a case written to catch a mistake pins what the mistake
  needs in every draw, and `check` and `tests/grading/test_draws.py` judge every wrong file
  under 12 draws.

The public attack corpus is `tests/grading/board_attacks/` (judged under four draws by
`tests/grading/test_board_attacks.py`: none may top its board), beside
`tests/server/sandbox/attacks/` (the sandbox's) and `tests/grading/test_tricks.py`.

| exercise | measures covered | open holes |
| --- | --- | --- |
"""


def measures(text: str) -> list[str]:
    """The first cell of each row of the notes' table."""
    lines = text.splitlines()
    if HEADER not in lines:
        return []
    out = []
    for line in lines[lines.index(HEADER) + 2:]:
        if not line.startswith("|"):
            break
        out.append(line.strip().strip("|").split("|")[0].strip())
    return out


def holes(text: str) -> list[str]:
    """The titles of the notes' open holes (``**Open hole: …**``, ``**Partly open: …**``)."""
    return [f"{kind.lower()}: {title.rstrip('.')}" for kind, title in
            re.findall(r"\*\*(Open hole|Partly open): ([^*]+)\*\*", text)]


def render(root: Path = ROOT) -> str:
    """The page, from every exercise folder's ``gaming.md``."""
    rows = []
    for notes in sorted((root / "exercises").glob("*/gaming.md")):
        text = notes.read_text(encoding="utf-8")
        link = f"[{notes.parent.name}](../exercises/{notes.parent.name}/gaming.md)"
        rows.append(f"| {link} | {', '.join(measures(text))} | "
                    f"{'; '.join(holes(text)) or 'none known'} |")
    return INTRO + "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.exit(write_or_check(PAGE, render(), sys.argv, "scripts/gaming_index.py"))
