"""A learner's implementation of an exercise as a series, loaded on a rank once the group exists.

The file is loaded with the kernel's :mod:`cjudge.rank.learner`. A file written for torchrun calls
``init_process_group`` and ``destroy_process_group`` itself: both are no-ops while it loads, and
what its module-level code prints is dropped (it runs once per rank, before any timing).

An exercise whose graded call takes the built-in's tensor is called on the built-in's buffers
(:func:`learner_series`); one that names ``bench_scale`` in its ``exercise.toml`` is called on
its grader's inputs scaled to each size (:func:`case_series`), the judge's functions applied on
the rank: no code per exercise either way.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import mmap
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from ..contract import values
from ..contract.protocol import CaseSpec, TensorData
from ..exercise.exercises import Exercise, default_root, load_exercises
from ..grading.compare import compare
from ..grading.grade import plan_cases
from ..rank import judge_fns
from ..rank.learner import MODULE_PREFIX, compile_learner, exec_learner
from ..real.group_lifecycle import group_owned_by_judge
from ..switch import functions
from ..switch.local import LocalFunctions
from ..switch.reduce import DTYPES
from .collectives import Buffers, Collective, RankCtx
from .config import LearnerSpec
from .series import Series


def load_module(spec: LearnerSpec, rank: int) -> dict[str, object]:
    """The learner's file run as a module on this rank: its namespace."""
    path = Path(spec.file)
    codeobj = compile_learner(path.read_text(encoding="utf-8"), str(path))
    with group_owned_by_judge(), contextlib.redirect_stdout(io.StringIO()):
        return exec_learner(codeobj, f"{MODULE_PREFIX}{rank}")


def learner_function_of(namespace: dict[str, object], name: str) -> Callable[..., object]:
    """The function ``name`` of a learner's module; NameError if it defines none."""
    function = namespace.get(name)
    if not callable(function):
        raise NameError(f"{namespace.get('__file__')} must define a function `{name}`")
    return function


def load_function(spec: LearnerSpec, rank: int) -> Callable[..., object]:
    """The learner's function, from their file run as a module on this rank."""
    return learner_function_of(load_module(spec, rank), spec.function)


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
    call returned, flattened (transposed first for ``bench_result = "transposed"``). With
    ``bench_scale``, :func:`case_series` instead.
    """
    if spec.scale:
        return case_series(spec, collective, ctx)
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


def scaled_case(exercise: Exercise, scale: tuple[str, ...], world: int, nbytes: int) -> CaseSpec:
    """The exercise's first sample case on ``world`` ranks with every ``scale`` parameter (an
    integer, or a list's first, every entry for ``name[*]``) multiplied so that a rank's input
    is about ``nbytes`` (never below the sample's), its inputs made by the grader."""
    base = next(c for c in exercise.cases if c.sample)
    every = {entry.removesuffix("[*]"): entry.endswith("[*]") for entry in scale}

    def planned(factor: int) -> CaseSpec:
        params: dict[str, int | str] = {
            name: _times(value, factor, every[name]) if name in every else value
            for name, value in base.params.items()}
        case = dataclasses.replace(base, world_size=world, sample=False, params=params)
        return plan_cases(dataclasses.replace(exercise, cases=(case,)))[0]

    unit = max(1, values.input_bytes(planned(1)))
    return planned(max(1, round(nbytes / unit)))


def _times(value: Any, factor: int, every: bool) -> Any:
    """An integer case parameter ``factor`` times, or a list of them with its first so (every
    entry with ``every``)."""
    if isinstance(value, int):
        return value * factor
    return [v * factor for v in value] if every else [value[0] * factor, *value[1:]]


def case_series(spec: LearnerSpec, collective: Collective, ctx: RankCtx) -> Series:
    """The learner's function on the exercise's grader inputs at each size (:func:`scaled_case`),
    timed beside ``collective``; checked, in a call of its own, against the grader's expected
    result with the judge's tolerance."""
    exercise = load_exercises(default_root())[spec.exercise]
    namespace = load_module(spec, ctx.rank)
    calls = [learner_function_of(namespace, name) for name in [spec.function]]
    prepared: dict[int, tuple[CaseSpec, LocalFunctions, list[Any]]] = {}

    def tensor(data: TensorData) -> torch.Tensor:
        return torch.tensor(data["data"], dtype=getattr(torch, data["dtype"]),
                            device=ctx.device).reshape(data["shape"])

    def prepare(nbytes: int) -> tuple[CaseSpec, LocalFunctions, list[Any]]:
        case = scaled_case(exercise, spec.scale, ctx.world, nbytes)
        mine, table = functions.split(case["inputs"][ctx.rank])
        port = LocalFunctions(table, ctx.rank, ctx.world, _shared(table, ctx.world), dist.barrier)
        names, raw = values.call_of(mine, spec.function)
        calls[:] = [learner_function_of(namespace, name) for name in names]
        args = values.decode(raw, tensor, lambda handle: judge_fns.make(
            handle, port, tensor, _to_data, lambda: None))
        return case, port, args

    def call(port: LocalFunctions, args: list[Any]) -> object:
        port.yielded.clear()  # a generator starts over with every call
        returned = calls[0](*args)
        for then in calls[1:]:
            returned = then(returned)
        return args[0] if spec.output == "inplace" else returned

    def run(bufs: Buffers) -> object:
        nbytes = bufs.inp.numel() * bufs.inp.element_size()
        if nbytes not in prepared:
            prepared[nbytes] = prepare(nbytes)
        _, port, args = prepared[nbytes]
        return call(port, args)

    def check(bufs: Buffers) -> int:
        case, port, args = prepare(bufs.inp.numel() * bufs.inp.element_size())
        got = values.encode(call(port, args), _to_data)
        want = exercise.grader.expected(case["params"], ctx.world, case["inputs"])[ctx.rank]
        return 0 if compare(exercise, case, ctx.rank, got, want) is None else 1

    return Series(spec.exercise, "learner", collective, run, lambda raw, bufs: None, check)


def _shared(table: list[tuple[str, functions.FnParams]], world: int) -> mmap.mmap | None:
    """Every rank's symmetric buffer in one file every rank maps (rank 0 makes it, names it to
    the others, and unlinks it once all have mapped it); None when the call has none. A
    collective call: every rank makes it at the same step."""
    params = next((p for name, p in table if name == functions.MEMORY), None)
    if params is None:
        return None
    size = world * int(params["numel"]) * DTYPES[str(params.get("dtype", "float32"))][1]
    name: list[str | None] = [None]
    if dist.get_rank() == 0:
        with tempfile.NamedTemporaryFile(prefix="cjudge-symm-", delete=False) as f:
            f.truncate(max(1, size))
            name = [f.name]
    dist.broadcast_object_list(name, src=0)
    with open(str(name[0]), "r+b") as f:
        shared = mmap.mmap(f.fileno(), max(1, size))
    dist.barrier()
    if dist.get_rank() == 0:
        os.unlink(str(name[0]))
    return shared


def _to_data(value: object) -> TensorData | None:
    """A tensor as plain data (on the CPU), or None."""
    if not isinstance(value, torch.Tensor):
        return None
    return TensorData(shape=list(value.shape), dtype=str(value.dtype).removeprefix("torch."),
                      data=value.detach().cpu().contiguous().reshape(-1).tolist())
