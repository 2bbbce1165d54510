"""The message for a mistyped exercise id: the ids it is close to, never the whole catalog."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .exits import invocation


def unknown_exercise(exercise_id: str, known: Iterable[str]) -> str:
    """``unknown exercise 'x'; did you mean a?`` (or ``a or b``), else where the ids are listed."""
    close = difflib.get_close_matches(exercise_id, list(known), n=3, cutoff=0.6)
    if not close:
        return f"unknown exercise {exercise_id!r}; `{invocation()} list` shows the exercises"
    return (f"unknown exercise {exercise_id!r}; did you mean "
            f"{', '.join(close[:-1]) + ' or ' if len(close) > 1 else ''}{close[-1]}?")
