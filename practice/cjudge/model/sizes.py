"""Modelled sizes: ``4KiB``/``4K`` (binary, as nccl-tests' -b/-e), ``1MB``/``1GB`` (decimal).

The chapter's closed forms use decimal sizes (1 GB = 10⁹ B); nccl-tests' size flags are binary.
Both are accepted, by their spelling: K, M, G and KiB, MiB, GiB are powers of 1024; KB, MB, GB
are powers of 1000; a bare number is bytes.
"""

from __future__ import annotations

import re

from .topology import ModelError

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:([KMG])(i?B)?|(B)?)\s*$", re.IGNORECASE)
_POWER = {"K": 1, "M": 2, "G": 3}


def parse_size(text: str | int) -> int:
    """Bytes from ``"1GB"`` (10⁹), ``"1G"``/``"1GiB"`` (2³⁰), ``"512"`` or an int."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 1:
            raise ModelError(f"bad size {text}: must be at least 1 byte")
        return text
    match = _SIZE.match(str(text))
    if not match:
        raise ModelError(f"bad size {text!r}: a number with K, M, G (binary), KiB, MiB, GiB "
                         "(binary) or KB, MB, GB (decimal), e.g. 4KiB, 1MB, 1GB")
    number, prefix, suffix = float(match.group(1)), match.group(2), match.group(3)
    if prefix is None:
        nbytes = number
    else:
        base = 1000 if suffix is not None and suffix.upper() == "B" else 1024
        nbytes = number * base ** _POWER[prefix.upper()]
    if nbytes < 1 or nbytes != int(nbytes):
        raise ModelError(f"bad size {text!r}: must be a whole number of bytes >= 1")
    return int(nbytes)


def parse_sizes(text: str) -> list[int]:
    """``"1K..1G"`` (powers of 2 from one to the other) or ``"4KiB,1MB,1GB"``."""
    if ".." in text:
        low, high = (parse_size(part) for part in text.split("..", 1))
        if high < low:
            raise ModelError(f"bad range {text!r}: the first size must not exceed the second")
        sizes = [low]
        while sizes[-1] * 2 <= high:
            sizes.append(sizes[-1] * 2)
        return sizes
    return [parse_size(part) for part in text.split(",") if part.strip()]


def format_size(nbytes: float) -> str:
    """``1 GB``, ``4 KiB``, ``19.8 MB``: binary when it is a whole power-of-1024 multiple."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale:g} {unit}"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:g} B"


def format_seconds(seconds: float) -> str:
    """``73.9 µs``, ``3.96 ms``, ``1.2 s``: three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"
