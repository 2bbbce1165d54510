"""The web build publishes the kernel and the exercises, never a reference or wrong solution."""

from __future__ import annotations

import zipfile
from pathlib import Path

KERNEL_ZIP = Path(__file__).resolve().parents[2] / "web" / "dist" / "kernel.zip"


def test_the_browser_zip_holds_no_private_file():
    assert KERNEL_ZIP.is_file(), "build the web app first (scripts/setup.sh does)"
    names = zipfile.ZipFile(KERNEL_ZIP).namelist()
    assert "exercises/ring-allreduce/grader.py" in names
    assert "exercises/ring-allreduce/starter.py" in names
    leaked = [n for n in names if n.endswith("/solution.py") or "/wrong/" in n]
    assert leaked == []
