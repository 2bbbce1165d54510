"""The sizes a bench run sweeps, as nccl-tests steps them: ``-f`` (a factor) or ``-i`` (bytes)."""

from __future__ import annotations


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
