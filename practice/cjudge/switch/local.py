"""The judge's functions applied on the rank itself, where no switch runs (``judge.py bench``
on real torch, the gloo differential test): the port a rank's ``judge_fns`` calls, with
``compute`` only, answering as the switch would."""

from __future__ import annotations

from typing import Any

from . import functions


class LocalFunctions:
    """One rank's judge functions (``functions.split``'s table), applied here."""

    def __init__(self, table: list[tuple[str, dict[str, Any]]], rank: int, world: int) -> None:
        self.table, self.rank, self.world = table, rank, world
        self.yielded: dict[int, int] = {}  # a generator's handle -> items given so far

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        """The function's output bytes, as the switch would answer them (a generator: its next
        item)."""
        name, params = self.table[handle]
        if name == functions.MEMORY:
            raise functions.FunctionError(
                "symmetric memory lives in the judge's switch", "对称内存只存在于评测机的交换机中")
        if name in functions.GENERATORS:
            return functions.next_item(params, self.yielded, handle)[0]
        return functions.apply(name, params, payload, dtype, shape, args)
