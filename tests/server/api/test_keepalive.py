"""An event stream's keep-alive goes by the clock: with 200 streams open each loop's database
look took long, and counting the idle time per loop (50 ms each) sent it every ~60 s instead of
every 15 s, so a proxy's 60 s timeout dropped the streams (issue 41)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from server.api.routes import events


class Clock:
    """A monotonic clock that only the database's looks move: each takes a second."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowWatch:
    """A submission's poller whose every look takes a second and finds no change."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    async def after(self, version: int, timeout_s: float) -> bool:
        self.clock.now += 1.0
        return False


class Connected:
    async def is_disconnected(self) -> bool:
        return False


def test_a_keep_alive_goes_every_heartbeat_however_slow_each_look(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(events, "time", SimpleNamespace(monotonic=clock))
    running: Any = SimpleNamespace(id=1, status="running", result=None, cases_so_far=[])

    async def stream() -> list[bytes]:
        chunks = events._stream(running, SlowWatch(clock), lambda row: row, None, 0,
                                Connected(), deadline=4 * events.HEARTBEAT_S + 1)
        return [chunk async for chunk in chunks]

    chunks = asyncio.run(stream())
    keep_alives = [c for c in chunks if b"keep-alive" in c]
    assert len(keep_alives) == 4, chunks  # 61 s of slow looks: one every 15 s
