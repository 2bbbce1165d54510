"""The browser's :class:`cjudge.sim.transport.Transport`: calls on the JavaScript coordinator.

The coordinator (``web/src/runner/coordinator.js``) holds the mailboxes of one case. A rank is a
suspended stack in the judge's Pyodide (JSPI: a blocking call is ``run_sync`` on the
coordinator's promise) or a worker of its own (the coordinator's proxy answers every call at
once). When the case is abandoned (a deadlock) a blocked ``wait`` raises :class:`Aborted`, so
the rank's stack unwinds instead of being left suspended.
"""

from __future__ import annotations

from inspect import isawaitable
from typing import Any

from pyodide.ffi import run_sync, to_js


def settled(answer: Any) -> Any:
    """A JavaScript answer as a value: under JSPI a promise suspends this stack until it settles."""
    return run_sync(answer) if isawaitable(answer) else answer


class Aborted(BaseException):
    """The case was stopped while this rank was blocked: unwind, run nothing more."""


class JsTransport:
    """Point-to-point posts and waits on ``coordinator``, whose answers may be promises."""

    def __init__(self, coordinator: Any) -> None:
        self._coordinator = coordinator

    def post_send(self, src: int, dst: int, tag: str, payload: bytes) -> int:
        return self._coordinator.post_send(src, dst, tag, to_js(payload))

    def post_recv(self, dst: int, src: int | None, tag: str) -> int:
        return self._coordinator.post_recv(dst, src, tag)

    def wait(self, rank: int, handle: int, op: str) -> tuple[int, bytes] | None:
        answer = settled(self._coordinator.wait(rank, handle, op))
        if answer is None:
            return None
        if getattr(answer, "abort", False):
            raise Aborted(op)
        return answer[0], answer[1].to_bytes()

    def test(self, handle: int) -> bool:
        settled(self._coordinator.pause())  # a rank polling in a loop lets the others run
        return self._coordinator.test(handle)

    def finish(self, rank: int, state: str) -> None:
        self._coordinator.finish(rank, state)
