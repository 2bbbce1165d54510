"""Numbers as a diagnosis writes them: ordinals, and a few elements of a payload."""

from __future__ import annotations

from collections.abc import Sequence

from ...contract.protocol import CaseSpec
from ...contract.values import element_matches

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


def graded_dtype(spec: CaseSpec) -> str:
    """The dtype whose tolerance grades the case's results (``float64`` unless it names one)."""
    return str(spec["params"].get("dtype", "float64"))


def same(a: Sequence[float | int] | None, b: Sequence[float | int] | None, dtype: str) -> bool:
    """Whether two payloads are equal as the exercise grades a result: element by element
    within the tolerance of ``dtype`` (:func:`cjudge.contract.values.element_matches`)."""
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(element_matches(x, y, dtype) for x, y in zip(a, b, strict=True))


def shown_apart(a: float | int, b: float | int) -> tuple[str, str]:
    """Two different elements as :func:`shown` writes them, with as many digits as it takes
    for them to print differently (never ``-0.4259 where … -0.4259``)."""
    if not (isinstance(a, float) or isinstance(b, float)) or shown(a) != shown(b):
        return shown(a), shown(b)
    for digits in range(5, 18):
        x, y = f"{float(a):.{digits}g}", f"{float(b):.{digits}g}"
        if x != y:
            return x, y
    return repr(a), repr(b)
