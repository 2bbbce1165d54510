"""One poller per submission, not one per event stream (issue 41): twenty streams of one
submission share one watch whose looks at the database do not grow with them, each stream sees
every change, and the poller ends with the last stream."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from sqlalchemy import update
from test_queue import db, enqueue  # noqa: F401 - db is a fixture

from server.api.routes import events
from server.api.watch import Watches
from server.db import write_session
from server.models import DONE, Submission

STREAMS = 20
POLL_S = 0.02


class Connected:
    async def is_disconnected(self) -> bool:
        return False


class Finished:
    """What a finished stream sends: its status."""

    def __init__(self, current: Any) -> None:
        self.status = current.status

    def body(self, seen: int) -> bytes:
        return f"done:{self.status}".encode()


class Case:
    """A case so far, as the stream dumps it."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.case = case

    def model_dump(self, mode: str) -> dict[str, Any]:
        return self.case


def outline(row: Submission) -> Any:
    """The part of a submission a stream sends: its status and cases so far."""
    return SimpleNamespace(id=row.id, status=row.status, result=None,
                           cases_so_far=[Case(case) for case in row.cases_so_far or []])


def test_the_streams_of_one_submission_share_one_poller(db) -> None:  # noqa: F811
    engine = db[0]
    (sid,) = enqueue(db)
    watches = Watches(engine, POLL_S)
    looks = [0]
    stamp = watches.stamp

    def counted(submission_id: int) -> tuple[object, ...]:
        looks[0] += 1
        return stamp(submission_id)

    watches.stamp = counted  # type: ignore[method-assign]

    def write(**values: Any) -> None:
        with write_session(engine) as s:
            s.exec(update(Submission).where(Submission.id == sid).values(**values))

    async def follow(first: Any) -> list[bytes]:
        async with watches.follow(sid) as watch:
            return [chunk async for chunk in events._stream(
                first, watch, outline, Finished, 0, Connected(), time.monotonic() + 60)]

    async def scenario() -> tuple[list[list[bytes]], int, float]:
        first = SimpleNamespace(id=sid, status="queued", result=None, cases_so_far=[])
        streams = [asyncio.create_task(follow(first)) for _ in range(STREAMS)]
        deadline = time.monotonic() + 30  # a bound for a hang, not a measure
        while sum(w.followers for w in watches.watches.values()) < STREAMS:
            assert time.monotonic() < deadline, "the streams did not start"
            await asyncio.sleep(0.01)
        assert list(watches.watches) == [sid]  # one watch, one poller
        start, looked = time.monotonic(), looks[0]
        await asyncio.sleep(0.5)
        window = (looks[0] - looked, time.monotonic() - start)
        write(status="running", cases_so_far=[{"name": "a", "verdict": "accepted"}])
        await asyncio.sleep(0.2)
        write(status=DONE)
        return await asyncio.gather(*streams), *window

    done, looked, elapsed = asyncio.run(scenario())
    print(f"\n{STREAMS} streams of one submission: {looked} looks at the database in "
          f"{elapsed:.2f} s (one poller every {POLL_S} s: at most {elapsed / POLL_S:.0f})")
    # one poller looks once per POLL_S at most (a busy machine looks less often); one per
    # stream would look STREAMS times as often
    assert looked <= elapsed / POLL_S + 2, (looked, elapsed)
    for chunks in done:
        text = b"".join(chunks).decode()
        assert '"status": "running"' in text and '"name": "a"' in text, text
        assert text.endswith("done:done"), text
    assert watches.watches == {}  # the poller went with the last stream
    after = looks[0]
    time.sleep(5 * POLL_S)
    assert looks[0] == after  # and looks no more
