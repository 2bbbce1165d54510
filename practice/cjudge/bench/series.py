"""A series: something measured over the sizes, a torch built-in or a learner's function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from .collectives import Buffers, Collective, RankCtx

Run = Callable[[Buffers], object]
Result = Callable[[object, Buffers], "torch.Tensor | None"]


@dataclass(frozen=True)
class Series:
    """How to call it once (``run``) and where its result is, in its collective's output layout."""

    label: str
    kind: str  # "built-in" or "learner"
    collective: Collective
    run: Run
    result: Result
    #: a correctness check of its own, one fresh call: this rank's wrong elements (None: compare
    #: ``result`` with the collective's expected output)
    check: Callable[[Buffers], int] | None = None


def builtin_series(collective: Collective, ctx: RankCtx) -> Series:
    """torch's own collective."""
    return Series(collective.name, "built-in", collective,
                  lambda bufs: collective.run(bufs, ctx), lambda _raw, bufs: bufs.out)

