"""A case as a grader reads it, and the hooks a grader declares.

A grader's hooks are called with a case's raw parameters (``exercise.toml``'s, JSON across a
sandbox or the browser: ``dict[str, int | str]``) and its world size; :meth:`Case.of` types
them once, so a hook reads ``case["numel"]`` as an ``int`` and never casts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..values import ITEMSIZE

#: a case's parameters as exercise.toml gives them
Params = Mapping[str, Any]


@dataclass(frozen=True)
class Case:
    """One case's world, element type and integer parameters, typed."""

    world: int
    dtype: str
    itemsize: int  # bytes per element of ``dtype``
    sizes: Mapping[str, int]  # the integer parameters (numel, m, k, …)
    texts: Mapping[str, str]  # the text parameters (dtype, a schedule's name, …)

    @classmethod
    def of(cls, params: Params, world: int) -> Case:
        """The case of ``params`` on ``world`` ranks (dtype float32 unless a parameter says)."""
        sizes = {k: int(v) for k, v in params.items()
                 if isinstance(v, int) and not isinstance(v, bool)}
        texts = {k: v for k, v in params.items() if isinstance(v, str)}
        dtype = texts.get("dtype", "float32")
        return cls(world, dtype, ITEMSIZE.get(dtype, 8), sizes, texts)

    def __getitem__(self, name: str) -> int:
        """An integer parameter: ``case["numel"]``."""
        return self.sizes[name]

    def chunks(self, size: str) -> list[tuple[int, int]]:
        """The [start, end) of each of ``t.chunk(world)``'s chunks of a 1-D tensor of
        ``self[size]`` elements (torch makes ⌈N/n⌉-element chunks, so the last ones may be
        shorter or missing)."""
        numel = self[size]
        step = math.ceil(numel / self.world) if numel else 1
        return [(lo, min(lo + step, numel)) for lo in range(0, numel, step)]

    def shards(self, size: str) -> list[tuple[int, int]]:
        """Rank r's shard [r·m, (r+1)·m) of a tensor of world·m elements, m = ``self[size]``."""
        m = self[size]
        return [(r * m, (r + 1) * m) for r in range(self.world)]


#: the hooks every grader defines (:class:`Grader`'s), checked when an exercise loads
REQUIRED_HOOKS = ("make_inputs", "expected", "bytes_bound", "diagnose")


class Grader(Protocol):
    """The hooks every grader declares; the optional ones each have a ``Protocol`` below
    (others: ``diagnose_shape``, ``chunk_of``, ``chunk_reader``, ``smaller_cases``,
    ``check_traffic``, ``check_computes``, ``memory``; see docs/authoring.md)."""

    def make_inputs(self, params: Params, world: int, rng: random.Random) -> list[Any]:
        """Every rank's input (``protocol.TensorData``, or a call's arguments)."""

    def expected(self, params: Params, world: int, inputs: list[Any]) -> list[Any]:
        """Every rank's expected result."""

    def bytes_bound(self, params: Params, world: int, itemsize: int) -> int | Sequence[int]:
        """The bytes no rank may send past (or each rank's own)."""

    def diagnose(self, params: Params, world: int, inputs: list[Any], rank: int, index: int,
                 got: Any) -> tuple[str, str] | None:
        """A guess at why element ``index`` of ``rank``'s result is ``got``, (English,
        Chinese); a grader of nested results also takes ``path``."""


class ExampleInputs(Protocol):
    """Optional ``example_inputs``: the statement's example, the sample case's inputs."""

    def __call__(self, params: Params, world: int) -> list[Any]: ...


class Needs(Protocol):
    """Optional ``needs``: over the byte bound, what the rank's receivers needed, in words."""

    def __call__(self, params: Params, world: int, inputs: list[Any], rank: int,
                 calls: list[Any]) -> tuple[str, str] | None: ...
