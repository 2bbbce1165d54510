"""An exercise's grader as the kernel calls it.

The kernel holds a case as it travels (``exercise.toml``'s parameters, JSON across a sandbox or
the browser, and a world size); a grader's hooks take the typed :class:`~.case.Case`.
:class:`Hooks` stands between them: it types each case once (:func:`typed`) and hands that
Case to every hook it calls.
"""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from types import ModuleType
from typing import Any, cast

from .case import OPTIONAL_HOOKS, Case, MemoryCount, Params


@lru_cache(maxsize=1024)
def _typed(world: int, params: str) -> Case:
    return Case.of(json.loads(params), world)


def typed(params: Params, world: int) -> Case:
    """The Case of ``params`` on ``world`` ranks, built once per case (the same parameters,
    in the same order, on as many ranks, are the same case)."""
    return _typed(world, json.dumps(params))


def _on_case(hook: Callable[..., Any]) -> Callable[..., Any]:
    """``hook(case, …)`` called as ``(params, world, …)``."""
    return lambda params, world, *rest, **named: hook(typed(params, world), *rest, **named)


class Hooks:
    """A grader module's hooks, each called with a case's raw ``params`` and ``world`` in
    place of the Case; an optional hook the grader does not define is None."""

    example_inputs: Callable[..., list[Any]] | None
    needs: Callable[..., tuple[str, str] | None] | None
    diagnose_shape: Callable[..., tuple[str, str] | None] | None
    chunk_of: Callable[..., int] | None
    chunk_reader: Callable[..., Any] | None
    smaller_cases: Callable[..., list[tuple[int, dict[str, object]]]] | None
    check_traffic: Callable[..., tuple[str, ...] | None] | None
    check_computes: Callable[..., tuple[str, str] | None] | None
    memory: Callable[..., MemoryCount] | None

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        #: the last case's expected results, keyed by its inputs (held, so never another's)
        self._expected: tuple[list[Any], int, str, list[Any]] | None = None
        #: whether ``diagnose`` takes ``path``: written for results other than one tensor
        self.takes_path = "path" in inspect.signature(module.diagnose).parameters
        #: whether ``check_computes`` takes ``trace``: the whole record, to check what crossed
        #: a judge's function's boundary (its sends) besides what each call was given
        check = getattr(module, "check_computes", None)
        self.computes_take_trace = check is not None and \
            "trace" in inspect.signature(check).parameters
        for name in OPTIONAL_HOOKS:
            hook = getattr(module, name, None)
            setattr(self, name, None if hook is None else _on_case(hook))

    def make_inputs(self, params: Params, world: int, rng: random.Random) -> list[Any]:
        """Every rank's input, drawn from ``rng``."""
        return cast(list[Any], self.module.make_inputs(typed(params, world), rng))

    def expected(self, params: Params, world: int, inputs: list[Any]) -> list[Any]:
        """Every rank's expected result, computed once per case: grading, the diagnosis and
        the view ask again for the same ``inputs`` (the very list) and get the same answer,
        which none of them changes."""
        key = json.dumps(params)
        last = self._expected
        if last is not None and last[0] is inputs and last[1] == world and last[2] == key:
            return last[3]
        wants = cast(list[Any], self.module.expected(typed(params, world), inputs))
        self._expected = (inputs, world, key, wants)
        return wants

    def forget(self) -> None:
        """Drop the last case's expected results (and its inputs with them): a judge that is
        done with a case calls it, so that no case outlives its turn."""
        self._expected = None

    def bytes_bound(self, params: Params, world: int) -> int | list[int]:
        """The bytes no rank may send past (or each rank's own, in rank order)."""
        bound: int | Sequence[int] = self.module.bytes_bound(typed(params, world))
        return bound if isinstance(bound, int) else list(bound)

    def diagnose(self, params: Params, world: int, inputs: list[Any], rank: int, index: int,
                 got: Any, **path: str) -> tuple[str, str] | None:
        """The grader's guess at a wrong element (``path=`` only if it :attr:`takes_path`)."""
        return cast(tuple[str, str] | None,
                    self.module.diagnose(typed(params, world), inputs, rank, index, got, **path))
