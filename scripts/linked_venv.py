"""A fresh venv that borrows distributions from the running environment instead of downloading
them (torch is gigabytes): the chosen distributions' files are symlinked into one folder that a
``.pth`` file puts on the venv's path, and pip counts them as installed. Used by the wheel test
(``tests/installed/test_wheel.py``) and the lowest-versions smoke (``scripts/lowest_deps.py``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement


def canonical(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requirements: list[str], extras: set[str]) -> set[str]:
    """The distributions ``requirements`` need (with ``extras``), transitively, by canonical
    name, as the running environment has them installed."""
    seen: set[str] = set()
    todo = [(r, extras) for r in requirements]
    while todo:
        text, wanted = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not any(
                req.marker.evaluate({"extra": e}) for e in (wanted or {""})):
            continue
        name = canonical(req.name)
        if name in seen:
            continue
        seen.add(name)
        todo += [(r, set(req.extras)) for r in metadata.distribution(name).requires or []]
    return seen


def make(venv: Path, borrowed: set[str]) -> Path:
    """Create ``venv`` (no pip in it: run ``python -m pip --python VENV/bin/python``) that sees
    the running environment's ``borrowed`` distributions, and nothing else of it; its python."""
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv",
                    "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    links = venv / "borrowed"
    links.mkdir()
    for name in borrowed:
        dist = metadata.distribution(name)
        base = Path(str(dist.locate_file("")))
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            if (base / top).exists() and not (links / top).exists():
                (links / top).symlink_to(base / top)
    (site / "borrowed.pth").write_text(f"{links}\n")
    return python
