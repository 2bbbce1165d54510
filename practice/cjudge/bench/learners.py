"""A learner's implementation of an exercise as a series, loaded on a rank once the group exists.

The file is loaded with the kernel's :mod:`cjudge.learner`. A file written for torchrun calls
``init_process_group`` and ``destroy_process_group`` itself: both are no-ops while it loads, and
what its module-level code prints is dropped (it runs once per rank, before any timing).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path

import torch

from ..learner import MODULE_PREFIX, compile_learner, exec_learner
from ..real.group_lifecycle import group_owned_by_judge
from .collectives import Buffers, Collective, RankCtx
from .config import LearnerSpec
from .series import Result, Run, Series


def load_function(spec: LearnerSpec, rank: int) -> Callable[..., object]:
    """The learner's function, from their file run as a module on this rank."""
    path = Path(spec.file)
    codeobj = compile_learner(path.read_text(encoding="utf-8"), str(path))
    with group_owned_by_judge(), contextlib.redirect_stdout(io.StringIO()):
        namespace = exec_learner(codeobj, f"{MODULE_PREFIX}{rank}")
    function = namespace.get(spec.function)
    if not callable(function):
        raise NameError(f"{path} must define a function `{spec.function}`")
    return function


def _in_place(function: Callable[..., object], ctx: RankCtx) -> tuple[Run, Result]:
    """``f(t)`` leaves the result in ``t`` (ring-allreduce)."""
    return (lambda bufs: function(bufs.inp)), (lambda _raw, bufs: bufs.inp)


def _transposed(function: Callable[..., object], ctx: RankCtx) -> tuple[Run, Result]:
    """``transpose(row)`` returns (k, n); its transpose, flattened, is all_to_all_single's output."""

    def result(raw: object, bufs: Buffers) -> torch.Tensor | None:
        if not isinstance(raw, torch.Tensor) or raw.dim() != 2 or raw.shape[1] != ctx.world:
            return None
        return raw.t().reshape(-1)

    return (lambda bufs: function(bufs.inp)), result


#: exercise id -> how to call the learner's function and where its result is
ADAPTERS: dict[str, Callable[[Callable[..., object], RankCtx], tuple[Run, Result]]] = {
    "ring-allreduce": _in_place,
    "alltoall-transpose": _transposed,
}


def learner_series(spec: LearnerSpec, collective: Collective, ctx: RankCtx) -> Series:
    """The learner's function measured like ``collective``, with the same inputs and check."""
    run, result = ADAPTERS[spec.exercise](load_function(spec, ctx.rank), ctx)
    return Series(spec.exercise, "learner", collective, run, result)
