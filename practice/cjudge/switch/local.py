"""The judge's functions applied on the rank itself, where no switch runs (``judge.py bench``
on real torch, the gloo differential test): the port a rank's ``judge_fns`` and ``symm_mem``
call, answering as the switch would. Symmetric memory is then real shared memory (mapped by
every rank: its loads and stores are copies) and its barrier the process group's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import functions, symm
from .reduce import DTYPES


class LocalFunctions:
    """One rank's judge functions (``functions.split``'s table), applied here; ``shared``:
    every rank's symmetric buffer, one after another, and ``barrier`` the group's."""

    def __init__(self, table: list[tuple[str, functions.FnParams]], rank: int, world: int,
                 shared: Any = None, barrier: Callable[[], object] | None = None) -> None:
        self.table, self.rank, self.world = table, rank, world
        self.shared, self.barrier = shared, barrier
        self.yielded: dict[int, int] = {}  # a generator's handle -> items given so far

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        """The function's output bytes, as the switch would answer them (a generator: its next
        item; symmetric memory: a load's bytes)."""
        name, params = self.table[handle]
        if name == functions.MEMORY:
            return self._access(params, payload, dtype, args)
        if name in functions.GENERATORS:
            return functions.next_item(params, self.yielded, handle)[0]
        return functions.apply(name, params, payload, dtype, shape, args)

    def _access(self, params: functions.FnParams, payload: bytes, dtype: str,
                args: list[int] | None) -> bytes:
        """A load from or a store into the shared buffers, checked as the switch checks it."""
        if self.shared is None:
            raise functions.FunctionError("no shared memory for symmetric memory here",
                                          "这里没有用于对称内存的共享内存")
        numel, held = symm.buffer_of(params, most=None)  # real memory: the switch's cap is not
        size = DTYPES[held][1]
        op, peer, offset = symm.checked(self.world, numel, held, args, dtype, len(payload) // size)
        at = (peer * numel + offset) * size
        if op == symm.LOAD:
            assert args is not None  # checked
            return bytes(self.shared[at:at + args[3] * size])
        self.shared[at:at + len(payload)] = payload
        return b""

    def post_collective(self, group: int, kind: str, payload: bytes, dtype: str,
                        **_: Any) -> int:
        """``symm.barrier()``: the group's barrier (the only collective posted here)."""
        if kind != symm.BARRIER or self.barrier is None:
            raise functions.FunctionError(f"{kind} cannot run here", f"{kind} 无法在此运行")
        self.barrier()
        return 0

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        """The barrier was done when it was posted."""
        return None, b""
