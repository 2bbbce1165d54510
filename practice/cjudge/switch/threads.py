"""The switch shared by ranks that are threads of one process (the CPython simulation)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, cast

from ..contract.protocol import TensorData
from .core import Switch


class ThreadSwitch:
    """A :class:`Switch` behind one ``threading.Condition``; :meth:`port` gives a rank's door."""

    def __init__(self, switch: Switch) -> None:
        self.switch = switch
        self.cond = threading.Condition()
        self.version = 0

    def call(self, method: str, rank: int, *args: Any, **kwargs: Any) -> Any:
        """Call a switch method for ``rank`` under the lock, waking whoever it completed."""
        with self.cond:
            try:
                return getattr(self.switch, method)(rank, *args, **kwargs)
            finally:
                self._changed()

    def _changed(self) -> None:
        self.version += 1
        self.switch.woken.clear()
        self.cond.notify_all()

    def wait(self, rank: int, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        """Block the rank's thread until its request is done (waited at ``line``); its outcome."""
        with self.cond:
            if not self.switch.wait(rank, handle, line):
                self._changed()
                while not self.switch.test(rank, handle):
                    self.cond.wait()
            return self.switch.result(rank, handle)

    def watch(self, version: int, timeout: float) -> None:
        """Sleep until anything changed since ``version`` or ``timeout`` passed."""
        with self.cond:
            self.cond.wait_for(lambda: self.version != version, timeout)

    def port(self, rank: int) -> ThreadPort:
        """Rank ``rank``'s door."""
        return ThreadPort(self, rank)


class ThreadPort:
    """One rank's door to a :class:`ThreadSwitch` (``port.Port``)."""

    def __init__(self, hub: ThreadSwitch, rank: int) -> None:
        self.hub, self.rank, self.world = hub, rank, hub.switch.world

    def new_group(self, ranks: Sequence[int]) -> int:
        return cast(int, self.hub.call("new_group", self.rank, ranks))

    def post_send(self, group: int, dst: int, tag: int, payload: bytes, dtype: str,
                  line: int | None, api: str) -> int:
        return cast(int, self.hub.call("post_send", self.rank, group, dst, tag, payload, dtype,
                                       line, api))

    def post_recv(self, group: int, src: int | None, tag: int, capacity: int, dtype: str,
                  line: int | None, api: str) -> int:
        return cast(int, self.hub.call("post_recv", self.rank, group, src, tag, capacity, dtype,
                                       line, api))

    def post_collective(self, group: int, kind: str, payload: bytes, dtype: str, *,
                        line: int | None, api: str, op: str | None = None,
                        root: int | None = None, splits: list[int] | None = None) -> int:
        return cast(int, self.hub.call("post_collective", self.rank, group, kind, payload, dtype,
                                       line=line, api=api, op=op, root=root, splits=splits))

    def test(self, handle: int) -> bool:
        return cast(bool, self.hub.call("test", self.rank, handle))

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        return self.hub.wait(self.rank, handle, line)

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        return cast(bytes, self.hub.call("compute", self.rank, handle, payload, dtype, shape, args,
                                         line))

    def begin(self) -> TensorData | None:
        """The graded call starts; this rank's input."""
        return cast("TensorData | None", self.hub.call("begin", self.rank))

    def end(self) -> None:
        """The graded call ended."""
        self.hub.call("end", self.rank)
