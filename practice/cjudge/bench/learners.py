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
from .series import Series


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


#: what a graded call's named argument (exercise.toml's ``arguments``) is in a sweep
ARGUMENTS: dict[str, Callable[[RankCtx], object]] = {
    "src": lambda ctx: ctx.root, "dst": lambda ctx: ctx.root, "root": lambda ctx: ctx.root,
    # two nodes when the ranks split evenly, else one
    "ranks_per_node": lambda ctx: ctx.world // 2 if ctx.world % 2 == 0 else ctx.world,
}


def learner_series(spec: LearnerSpec, collective: Collective, ctx: RankCtx) -> Series:
    """The learner's function measured like ``collective``, with the same inputs and check.

    The call is the exercise's own (``exercise.toml``): the built-in's input tensor, then its
    ``arguments``; the result is that tensor afterwards (``output = "inplace"``) or what the
    call returned, flattened (transposed first for ``bench_result = "transposed"``).
    """
    function = load_function(spec, ctx.rank)
    args = [ARGUMENTS[name](ctx) for name in spec.arguments]

    def run(bufs: Buffers) -> object:
        return function(bufs.inp, *args)

    def result(raw: object, bufs: Buffers) -> torch.Tensor | None:
        got = bufs.inp if spec.output == "inplace" else raw
        if not isinstance(got, torch.Tensor):
            return None
        if spec.layout == "transposed" and got.dim() == 2:
            got = got.t()
        return got.reshape(-1)

    return Series(spec.exercise, "learner", collective, run, result)
