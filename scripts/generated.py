"""What every page generator in ``scripts/`` does with its page: write it, or with ``--check``
only compare it with the committed one (exit 1 and say how to refresh it when it is stale)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def write_or_check(page: Path, text: str, argv: Sequence[str], script: str) -> int:
    """Write ``text`` into ``page`` (exit status 0), or with ``--check`` in ``argv`` say whether
    the committed page is ``text`` (1 if not, naming ``script`` to run)."""
    if "--check" not in argv[1:]:
        page.write_text(text, encoding="utf-8")
        return 0
    if page.read_text(encoding="utf-8") == text:
        print(f"{page.name} is current")
        return 0
    print(f"{page.name} is stale: run {script}", file=sys.stderr)
    return 1
