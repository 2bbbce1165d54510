"""A rank's door to the switch: what the rank-side libraries (simulated torch, the real
runtime's process group) call, whatever carries the call to the switch.

Implementations: :class:`cjudge.switch.threads.ThreadPort` (CPython threads, one switch in the
process), the browser's (suspended ranks in one Pyodide), and the real runtime's
(``cjudge.real.judge_group``: a request over the rank's private channel). ``wait`` blocks until
the request is done and returns its outcome; every method raises :class:`SwitchError` (or
:class:`Forbidden`) as the switch did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..contract.protocol import TensorData


class Port(Protocol):
    """One rank's requests to the switch (see ``core.Switch`` for the semantics)."""

    rank: int
    world: int

    def new_group(self, ranks: Sequence[int]) -> int:
        """The id of the group this call makes (every rank makes the same calls)."""
        ...

    def post_send(self, group: int, dst: int, tag: int, payload: bytes, dtype: str,
                  line: int | None, api: str) -> int:
        """Post a send; a request handle."""
        ...

    def post_recv(self, group: int, src: int | None, tag: int, capacity: int, dtype: str,
                  line: int | None, api: str) -> int:
        """Post a receive (``src`` None: any source); a request handle."""
        ...

    def post_collective(self, group: int, kind: str, payload: bytes, dtype: str, *,
                        line: int | None, api: str, op: str | None = None,
                        root: int | None = None, splits: list[int] | None = None) -> int:
        """Post this rank's part of a collective; a request handle."""
        ...

    def test(self, handle: int) -> bool:
        """Whether the request is done."""
        ...

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        """Block until the request is done; (source rank, received bytes). ``line``: the
        learner's line that waits (a deadlock names it beside the post's)."""
        ...

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        """Apply the judge's function ``handle`` (``switch.functions``) to a tensor's bytes;
        the output's bytes (same dtype and shape)."""
        ...

    def begin(self) -> TensorData | None:
        """The graded call starts; this rank's case input."""
        ...

    def end(self) -> None:
        """The graded call ended: no more communication from this rank."""
        ...
