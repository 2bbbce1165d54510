"""A case as a grader reads it, and the hooks a grader declares.

A case's raw parameters are ``exercise.toml``'s (JSON across a sandbox or the browser:
``dict[str, int | str | list]``); the kit types them once into a frozen :class:`Case` (the
world, the element type and its size, the integer parameters as ``int``) and hands that Case
to every hook (:mod:`.hooks`), so a hook reads ``case["numel"]`` and never casts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from ..contract.values import ITEMSIZE
from ..contract.verdict_json import MemoryUse

#: a case's parameters as exercise.toml gives them
Params = Mapping[str, Any]


@dataclass(frozen=True)
class Case:
    """One case's world, element type and parameters, typed."""

    world: int
    dtype: str
    itemsize: int  # bytes per element of ``dtype``
    sizes: Mapping[str, int]  # the integer parameters (numel, m, k, …)
    texts: Mapping[str, str]  # the text parameters (dtype, a schedule's name, …)
    params: Params  # all of them as given (lists too: a shape, a set of experts)

    @classmethod
    def of(cls, params: Params, world: int) -> Case:
        """The case of ``params`` on ``world`` ranks (dtype float32 unless a parameter says)."""
        sizes = {k: int(v) for k, v in params.items()
                 if isinstance(v, int) and not isinstance(v, bool)}
        texts = {k: v for k, v in params.items() if isinstance(v, str)}
        dtype = texts.get("dtype", "float32")
        return cls(world, dtype, ITEMSIZE.get(dtype, 8), MappingProxyType(sizes),
                   MappingProxyType(texts), MappingProxyType(dict(params)))

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
#: the hooks a grader may define (each a ``Protocol`` below; see docs/authoring.md)
OPTIONAL_HOOKS = ("example_inputs", "needs", "diagnose_shape", "chunk_of", "chunk_reader",
                  "smaller_cases", "check_traffic", "check_computes", "memory")


class Grader(Protocol):
    """The hooks every grader declares, each given the case first; the optional ones each
    have a ``Protocol`` below."""

    def make_inputs(self, case: Case, rng: random.Random) -> list[Any]:
        """Every rank's input (``protocol.TensorData``, or a call's arguments)."""

    def expected(self, case: Case, inputs: list[Any]) -> list[Any]:
        """Every rank's expected result."""

    def bytes_bound(self, case: Case) -> int | Sequence[int]:
        """The bytes no rank may send past (or each rank's own)."""

    def diagnose(self, case: Case, inputs: list[Any], rank: int, index: int,
                 got: Any) -> tuple[str, str] | None:
        """A guess at why element ``index`` of ``rank``'s result is ``got``, (English,
        Chinese); a grader of nested results also takes ``path``."""


#: a guess in words, (English, Chinese), or None
Why = tuple[str, str] | None


class ExampleInputs(Protocol):
    """``example_inputs``: the statement's example, the sample case's inputs."""

    def __call__(self, case: Case) -> list[Any]: ...


class Needs(Protocol):
    """``needs``: over the byte bound, what the rank's receivers needed, in words."""

    def __call__(self, case: Case, inputs: list[Any], rank: int, calls: list[Any]) -> Why: ...


class DiagnoseShape(Protocol):
    """``diagnose_shape``: what a result of the wrong ``shape`` (at ``path``) is, in words."""

    def __call__(self, case: Case, rank: int, shape: list[int], path: str) -> Why: ...


class ChunkOf(Protocol):
    """``chunk_of``: which chunk element ``index`` of a result is in (for "wrong chunks")."""

    def __call__(self, case: Case, index: int) -> int: ...


#: what reads a message's values as (chunk, ranks summed), or None
MessageReader = Callable[[list[float]], tuple[int, list[int]] | None]


class ChunkReader(Protocol):
    """``chunk_reader``: the case's :data:`MessageReader`."""

    def __call__(self, case: Case, inputs: list[Any]) -> MessageReader: ...


class SmallerCases(Protocol):
    """``smaller_cases``: (world, params) of smaller cases, smallest first."""

    def __call__(self, case: Case) -> list[tuple[int, dict[str, object]]]: ...


class CheckTraffic(Protocol):
    """``check_traffic``: a correct answer's calls, over budget (or a verdict) when it says
    why."""

    def __call__(self, case: Case, calls: list[Any]) -> tuple[str, ...] | None: ...


class CheckComputes(Protocol):
    """``check_computes``: whether the judge's functions were given what the algorithm gives
    them (and, with ``trace``, whether what crossed their boundaries came out of them); wrong
    when it says why."""

    def __call__(self, case: Case, inputs: list[Any], computes: list[Any],
                 trace: Any = None) -> Why: ...


class MemoryCount(MemoryUse):
    """What a ``memory`` hook counted: the peak and its bound (the case's ``memory``), and what
    the verdict says when the peak is over (English, Chinese)."""

    message: str
    message_zh: str


class Memory(Protocol):
    """``memory``: the peak of what the judge counts alive, and its bound."""

    def __call__(self, case: Case, inputs: list[Any], trace: Any) -> MemoryCount: ...
