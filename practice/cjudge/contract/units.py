"""The one rule for sizes and times, read and written: bench, model, CLI and web all use it.

Reading (``parse_size``): a bare number is bytes; ``K``, ``M``, ``G`` and ``KiB``, ``MiB``,
``GiB`` are powers of 1024 (nccl-tests' ``-b``/``-e``); ``KB``, ``MB``, ``GB`` are powers of
1000 (the chapter's closed forms: 1 GB = 10⁹ B). Fractions are allowed (``1.5M``), as nccl-tests
allows them, and the bytes are rounded down to a whole number, as nccl-tests does.

Writing (``format_size``): binary when the size is a whole number of quarters of the binary unit
it falls in (``64 MiB``, ``1.5 KiB``), else decimal with three significant digits (``1 MB``, ``19.8 MB``).
``web/src/app/units.js`` is the same rule in JavaScript; a test holds the two to one table.
"""

from __future__ import annotations

import math
import re

_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:([KMG])(i?B)?|(B)?)\s*$", re.IGNORECASE)
_POWER = {"K": 1, "M": 2, "G": 3}
_BINARY = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
_DECIMAL = (("GB", 1e9), ("MB", 1e6), ("KB", 1e3))


class SizeError(ValueError):
    """A size that is not one: the message shows the spellings that are."""


def parse_size(text: str | int) -> int:
    """Bytes from ``"1GB"`` (10⁹), ``"1G"``/``"1GiB"`` (2³⁰), ``"1.5M"``, ``"512"`` or an int."""
    if isinstance(text, int) and not isinstance(text, bool):
        nbytes: float = text
    else:
        match = _SIZE.match(str(text))
        if not match:
            raise SizeError(f"bad size {text!r}: a number of bytes, or one with K, M, G (binary, "
                            "as nccl-tests), KiB, MiB, GiB (binary) or KB, MB, GB (decimal), "
                            "e.g. 8, 1.5M, 4KiB, 1MB, 1GB")
        number, prefix, suffix = float(match.group(1)), match.group(2), match.group(3)
        base = 1000 if suffix is not None and suffix.upper() == "B" else 1024
        nbytes = number * base ** _POWER[prefix.upper()] if prefix else number
    if nbytes < 1:
        raise SizeError(f"bad size {text!r}: must be at least 1 byte")
    return int(nbytes)


def parse_sizes(text: str) -> list[int]:
    """``"1K..1G"`` (powers of 2 from one to the other) or ``"4KiB,1MB,1GB"``."""
    if ".." in text:
        low, high = (parse_size(part) for part in text.split("..", 1))
        if high < low:
            raise SizeError(f"bad range {text!r}: the first size must not exceed the second")
        sizes = [low]
        while sizes[-1] * 2 <= high:
            sizes.append(sizes[-1] * 2)
        return sizes
    return [parse_size(part) for part in text.split(",") if part.strip()]


def _digits(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, never in exponent form (999.9 → ``1000``)."""
    return f"{float(f'{value:.{digits}g}'):g}"


def format_size(nbytes: float) -> str:
    """``1 GB``, ``64 MiB``, ``1.5 KiB``, ``19.8 MB``, ``8 B``; ``nan``, ``inf``, ``-inf``."""
    if not math.isfinite(nbytes):
        return f"{nbytes:g}"
    for unit, scale in _BINARY:  # the unit whose range the size is in (GiB: any size above)
        if scale <= nbytes < (scale << 10 if unit != "GiB" else float("inf")) \
                and (4 * nbytes) % scale == 0:
            return f"{nbytes / scale:g} {unit}"
    for unit, decimal in _DECIMAL:
        if nbytes >= decimal:
            return f"{_digits(nbytes / decimal, 3)} {unit}"
    return f"{nbytes:g} B"


def format_seconds(seconds: float, digits: int = 3) -> str:
    """``73.9 µs``, ``3.96 ms``, ``1.2 s``, ``850 ns``: ``digits`` significant digits; ``nan``,
    ``inf``, ``-inf``."""
    if not math.isfinite(seconds):
        return f"{seconds:g}"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{_digits(seconds / scale, digits)} {unit}"
    return f"{_digits(seconds * 1e9, digits)} ns"


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 call``, ``3 calls``: a count and its noun."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
