"""How much memory a real rank may allocate beyond what it holds once its group exists: the
judge writes it into the job, the rank caps itself at it (no torch here: the judge's side
imports this)."""

from __future__ import annotations

from ..contract import values
from ..contract.protocol import CaseSpec

#: memory a rank may allocate beyond what it holds once the group exists (a MemoryError past
#: it), at least; a case with larger inputs gives its ranks more (:func:`memory_headroom`)
MEMORY_HEADROOM = 2**30
#: a rank's headroom in its case's input bytes: its input, what it receives, its result, the
#: copies its channel makes of them, and the learner's own buffers
HEADROOM_INPUTS = 16


def memory_headroom(case: CaseSpec) -> int:
    """The memory a rank of ``case`` may allocate: scaled with its input's bytes."""
    return max(MEMORY_HEADROOM, HEADROOM_INPUTS * values.input_bytes(case))
