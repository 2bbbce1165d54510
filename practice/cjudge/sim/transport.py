"""The transport: how the rank-side library talks to the coordinator that holds the mailboxes.

The simulated ``torch.distributed`` (rank side, this package) never touches other ranks
directly: everything goes through one object implementing :class:`Transport`. Two
implementations exist or are planned:

* :class:`cjudge.sim.threads.ThreadTransport` — CPython, one thread per rank, a
  ``threading.Condition`` (used by ``runtime_sim.run_case`` and the tests);
* the browser's — a JavaScript coordinator holding the mailboxes, ranks as suspended stacks in
  one Pyodide (JSPI: each rank started with ``callPromising``, a blocking ``wait`` is
  ``pyodide.ffi.run_sync(promise)``), or one worker per rank with ``SharedArrayBuffer`` +
  ``Atomics.wait``.

Semantics (those of gloo, measured with torch 2.13 here)
--------------------------------------------------------
Point-to-point messages *rendezvous*: a send completes only once the receiver has **posted** a
matching receive (it need not have waited on it yet), so two ranks that both block in ``send``
first deadlock, exactly as under gloo. A message matches the oldest posted receive of its
destination whose tag is equal and whose source is the sender or ``None`` (any source); a receive
matches the oldest posted send to it with that tag (from that source, or from any). Messages
between one pair with one tag are therefore delivered in order. Messages stay posted after their
sender finished: a peer may still receive them.

Collectives are built by the rank side out of the same calls (every member sends its
contribution to every other member under a tag naming the group, the call's sequence number in
that group and the op), so a transport implements point-to-point only. Two ranks in different
collectives at the same point never match: they block, and are reported as a deadlock.

Methods (all ranks and handles are ints; ``rank`` is always the caller's rank)
-------------------------------------------------------------------------------
``post_send(src, dst, tag, payload) -> handle``
    Post a send of ``payload`` (``bytes``: the tensor's raw little-endian values) under ``tag``
    (a ``str``). Never blocks. Matches a posted receive if there is one.
``post_recv(dst, src, tag) -> handle``
    Post a receive by ``dst`` from ``src`` (``None``: any source) under ``tag``. Never blocks.
    Matches a posted send if there is one.
``wait(rank, handle, op) -> (src, payload) | None``
    Block until the handle is matched, then forget it. Returns ``(src, payload)`` for a
    receive, ``None`` for a send. While blocked, the coordinator records the rank as *blocked*
    in ``op`` (a canonical op such as ``"recv"`` or ``"all_reduce"``) on the handle's peer, so
    it can report "rank 0 waits in recv from rank 3". If the case is stopped while a rank waits,
    ``wait`` never returns (threads: the process ends) or raises a ``BaseException`` that is not
    an ``Exception`` (the browser's ``Aborted``): ``rank.run_rank`` lets those through, so the
    learner's ``except Exception`` cannot catch them.
``test(handle) -> bool``
    Whether the handle is matched (a later ``wait`` returns at once). Never blocks, but in the
    browser it should let other ranks run (a rank may poll in a loop).
``finish(rank, state)``
    The rank's code ended: ``state`` is ``"returned"`` or ``"failed"``. Its posted sends stay.

Deadlock: the case is deadlocked when every rank that has not finished is blocked in ``wait`` on
an unmatched handle; nothing can then change. The coordinator detects that and stops the case.
"""

from __future__ import annotations

from typing import Protocol


class Transport(Protocol):
    """What the rank-side library needs from a coordinator (see the module docstring)."""

    def post_send(self, src: int, dst: int, tag: str, payload: bytes) -> int:
        """Post a send; never blocks."""
        ...

    def post_recv(self, dst: int, src: int | None, tag: str) -> int:
        """Post a receive from ``src`` (None: any source); never blocks."""
        ...

    def wait(self, rank: int, handle: int, op: str) -> tuple[int, bytes] | None:
        """Block until matched; ``(src, payload)`` for a receive, None for a send."""
        ...

    def test(self, handle: int) -> bool:
        """Whether the handle is matched."""
        ...

    def finish(self, rank: int, state: str) -> None:
        """The rank's code ended ("returned" or "failed")."""
        ...
