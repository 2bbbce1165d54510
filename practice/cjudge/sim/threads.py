"""The CPython transport: ranks are threads, mailboxes live behind one ``threading.Condition``.

It is also the coordinator: :meth:`ThreadTransport.snapshot` tells which ranks finished, which
are blocked in what, and whether the case is deadlocked (see ``transport.py`` for the contract).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


class _Handle:
    """One posted send or receive."""

    __slots__ = ("is_send", "owner", "peer", "payload", "src", "done")

    def __init__(self, is_send: bool, owner: int, peer: int | None, payload: bytes | None) -> None:
        self.is_send = is_send
        self.owner = owner  # the rank that posted it
        self.peer = peer  # destination of a send, source of a receive (None: any)
        self.payload = payload
        self.src: int | None = None
        self.done = False


@dataclass
class Snapshot:
    """The coordinator's view of the ranks at one moment."""

    finished: dict[int, str]  # rank -> "returned" | "failed"
    blocked: dict[int, tuple[str, int | None]] = field(default_factory=dict)  # rank -> (op, peer)
    deadlocked: bool = False
    version: int = 0  # changes whenever anything above may have changed


class ThreadTransport:
    """Mailboxes for ranks running as threads of one process."""

    def __init__(self, world: int) -> None:
        self.world = world
        self._cond = threading.Condition()
        self._handles: dict[int, _Handle] = {}
        self._next = 0
        self._sends: dict[tuple[int, str], list[_Handle]] = {}  # unmatched, by (dst, tag)
        self._recvs: dict[tuple[int, str], list[_Handle]] = {}  # unmatched, by (dst, tag)
        self._waiting: dict[int, tuple[_Handle, str]] = {}
        self._finished: dict[int, str] = {}
        self._version = 0

    def _changed(self) -> None:
        self._version += 1
        self._cond.notify_all()

    def _new(self, handle: _Handle) -> int:
        self._next += 1
        self._handles[self._next] = handle
        return self._next

    def _match(self, send: _Handle, recv: _Handle) -> None:
        recv.payload, recv.src = send.payload, send.owner
        send.payload = None
        send.done = recv.done = True
        self._changed()

    def post_send(self, src: int, dst: int, tag: str, payload: bytes) -> int:
        """Post a send; matches the oldest fitting posted receive."""
        h = _Handle(True, src, dst, payload)
        with self._cond:
            queue = self._recvs.get((dst, tag), [])
            for i, r in enumerate(queue):
                if r.peer is None or r.peer == src:
                    del queue[i]
                    self._match(h, r)
                    break
            else:
                self._sends.setdefault((dst, tag), []).append(h)
            return self._new(h)

    def post_recv(self, dst: int, src: int | None, tag: str) -> int:
        """Post a receive; matches the oldest fitting posted send."""
        h = _Handle(False, dst, src, None)
        with self._cond:
            queue = self._sends.get((dst, tag), [])
            for i, s in enumerate(queue):
                if src is None or s.owner == src:
                    del queue[i]
                    self._match(s, h)
                    break
            else:
                self._recvs.setdefault((dst, tag), []).append(h)
            return self._new(h)

    def wait(self, rank: int, handle: int, op: str) -> tuple[int, bytes] | None:
        """Block until matched, marked as blocked in ``op`` meanwhile."""
        with self._cond:
            h = self._handles.pop(handle)
            if not h.done:
                self._waiting[rank] = (h, op)
                self._changed()
                while not h.done:
                    self._cond.wait()
                del self._waiting[rank]
        if h.is_send:
            return None
        assert h.src is not None and h.payload is not None
        return h.src, h.payload

    def test(self, handle: int) -> bool:
        """Whether the handle is matched."""
        with self._cond:
            return self._handles[handle].done

    def finish(self, rank: int, state: str) -> None:
        """Record that a rank's code ended."""
        with self._cond:
            self._finished[rank] = state
            self._changed()

    def snapshot(self) -> Snapshot:
        """Finished ranks, blocked ranks and whether every unfinished rank is blocked."""
        with self._cond:
            blocked = {r: (op, h.peer) for r, (h, op) in self._waiting.items() if not h.done}
            finished = dict(self._finished)
            stuck = all(r in finished or r in blocked for r in range(self.world))
            return Snapshot(finished, blocked, stuck and len(finished) < self.world, self._version)

    def watch(self, version: int, timeout: float) -> None:
        """Sleep until something changed since ``version`` (a snapshot's) or ``timeout`` passed."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != version, timeout)
