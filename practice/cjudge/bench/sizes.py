"""Message sizes as nccl-tests takes them: ``-b``/``-e`` with K/M/G suffixes, ``-f`` or ``-i`` steps."""

from __future__ import annotations

import re

UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
SIZE_RE = re.compile(r"^\s*(\d+)\s*([KMG]?)(?:I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes from ``"64M"``, ``"1K"``, ``"512"`` (K = 1024, as in nccl-tests)."""
    match = SIZE_RE.match(text)
    if not match:
        raise ValueError(f"bad size {text!r}: expected a whole number with an optional K, M or G "
                         "suffix (e.g. 8, 1K, 64M, 1G)")
    return int(match.group(1)) * UNITS[match.group(2).upper()]


def format_size(nbytes: int) -> str:
    """A short binary label: ``64 MiB``, ``1 KiB``, ``8 B``, ``1.5 KiB``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes} B"


def sweep(minbytes: int, maxbytes: int, factor: int, stepbytes: int) -> list[int]:
    """Sizes from ``minbytes`` to ``maxbytes``: times ``factor`` if it is > 1, else plus ``stepbytes``."""
    if minbytes < 1 or maxbytes < minbytes:
        raise ValueError(f"sizes must satisfy 1 <= min ({minbytes}) <= max ({maxbytes})")
    if factor < 1 or (factor == 1 and stepbytes < 1):
        raise ValueError("the step factor must be >= 1, and the step in bytes >= 1 when it is 1")
    sizes, size = [], minbytes
    while size <= maxbytes:
        sizes.append(size)
        size = size * factor if factor > 1 else size + stepbytes
    return sizes
