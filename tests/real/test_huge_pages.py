"""The zygote's memory in huge pages (cheaper forks): collapsed where the kernel can."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PRACTICE = Path(__file__).resolve().parents[2] / "practice"
THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from cjudge.real.huge_pages import collapse_anonymous_memory
block = bytearray(64 << 20)  # anonymous memory, written: what torch's import leaves behind
def huge_kb():
    with open("/proc/self/smaps_rollup") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("AnonHugePages:"))
before = huge_kb()
collapsed = collapse_anonymous_memory()
print(before, huge_kb(), collapsed)
"""


@pytest.mark.skipif(not THP.exists() or "[never]" in THP.read_text(),
                    reason="transparent huge pages are off on this kernel")
def test_anonymous_memory_is_collapsed_into_huge_pages() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, str(PRACTICE)], capture_output=True,
                         text=True, check=True).stdout.split()
    before, after, collapsed = map(int, out)
    assert collapsed >= 32 << 20  # most of the 64 MiB block, in whole 2 MiB pages
    assert after - before >= 32 << 10  # the kernel says so too (kB)
