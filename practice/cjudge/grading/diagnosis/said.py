"""What a diagnosis from the run says: its cause in English and Chinese, and whether that
cause names the fault itself."""

from __future__ import annotations

from typing import Any, NamedTuple


class Cause(NamedTuple):
    """A cause from the run's evidence."""

    en: str
    zh: str
    #: the evidence names the fault itself (a buffer read before its wait, a send that repeats
    #: an earlier one, another slice or call's input, swapped split sizes): it contradicts a
    #: grader's guess from the first wrong element, which is then dropped; a departure the
    #: run shows only by its values leaves the grader's hint standing
    named: bool = False


def algorithm(exercise: Any) -> tuple[str, str]:
    """What the exercise calls its reference's algorithm ("the ring"), in English and Chinese."""
    return exercise.messages.algorithm if exercise.messages else ("the reference", "参考解")
