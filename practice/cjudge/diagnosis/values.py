"""Numbers as a diagnosis writes them: ordinals, and a few elements of a payload."""

from __future__ import annotations

from collections.abc import Sequence

#: elements of a payload shown in a message
SHOWN = 4


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``."""
    tail = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{tail}"


def shown(value: float | int) -> str:
    """An element as the learner would print it: ``3``, ``2.5``, ``0.09418``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def shown_list(values: Sequence[float | int]) -> str:
    """``[1, 2, 3, 4, …]``: the first :data:`SHOWN` elements."""
    head = ", ".join(shown(v) for v in values[:SHOWN])
    return f"[{head}{', …' if len(values) > SHOWN else ''}]"
