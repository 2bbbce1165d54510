"""A rank's end of the browser transport: calls on the JavaScript coordinator of its case.

Objects cross as pickles (bytes), which both ways of running ranks can carry: a suspended stack
in the judge's Pyodide (JSPI: the coordinator answers a promise and ``wait`` is ``run_sync``) or a
worker of its own (the coordinator's proxy answers at once and ``wait`` returns its argument).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from pyodide.ffi import to_js

ANY_SOURCE = -1


class Aborted(BaseException):
    """The case was stopped (a deadlock) while this rank was blocked: unwind, run nothing more."""


class JsTransport:
    """Point-to-point mail and collective rendezvous for ``rank``, through ``coordinator``."""

    def __init__(self, coordinator: Any, rank: int, wait: Callable[[Any], Any]) -> None:
        self._coordinator = coordinator
        self._wait = wait
        self.rank = rank

    def _blocking(self, answer: Any, op: str) -> Any:
        answer = self._wait(answer)
        if getattr(answer, "abort", False):
            raise Aborted(op)
        return answer

    def post(self, dst: int, tag: int, obj: Any) -> None:
        """Deliver ``obj`` to ``dst``'s mailbox; never blocks."""
        self._coordinator.post(self.rank, dst, tag, to_js(pickle.dumps(obj)))

    def take(self, src: int, tag: int, op: str) -> tuple[int, Any]:
        """Block in ``op`` until a message from ``src`` (or ANY_SOURCE) with ``tag`` arrives."""
        got = self._blocking(self._coordinator.take(self.rank, src, tag, op), op)
        return got.src, pickle.loads(got.payload.to_bytes())

    def rendezvous(self, key: str, size: int, index: int, obj: Any, op: str) -> list[Any]:
        """Block in collective ``op`` until all ``size`` members called with ``key``; every
        member's contribution, in member order."""
        parts = self._blocking(self._coordinator.rendezvous(self.rank, key, size, index,
                                                            to_js(pickle.dumps(obj)), op), op)
        return [pickle.loads(p.to_bytes()) for p in parts]

    def finish(self, state: str) -> None:
        """This rank's program ended: ``returned`` or ``failed``."""
        self._coordinator.finish(self.rank, state)
