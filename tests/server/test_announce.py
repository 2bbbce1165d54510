"""A worker announces each change it commits to a submission (claimed, verdict stored) to the
API processes of its queue on this machine, and a poller that follows the submission looks at
once instead of at its next poll; an announcement wakes that submission's poller only."""

from __future__ import annotations

import asyncio
import socket

from sqlalchemy import update
from test_queue import db, enqueue, graded_by_a_worker_failing_with  # noqa: F401 - db: fixture

from server import doorbell
from server.api.watch import Watches
from server.db import write_session
from server.doorbell import WATCHERS, announce, folder
from server.models import DONE, RUNNING, Submission

#: far longer than the test waits: a change seen came through the announcement, not a poll
POLL_S = 600.0
#: a bound for a lost announcement, not a measure
WAIT_S = 30.0


def test_a_workers_claim_and_verdict_are_announced(db, monkeypatch) -> None:  # noqa: F811
    settings = db[1]
    place = folder(settings.url)
    place.mkdir(mode=0o700, exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as api:
        api.bind(str(place / f"test{WATCHERS}"))
        api.settimeout(WAIT_S)
        submission = graded_by_a_worker_failing_with(db, RuntimeError("boom"), monkeypatch)
        heard = [api.recv(32), api.recv(32)]
    assert submission.status == DONE
    assert heard == [str(submission.id).encode()] * 2  # claimed, then its verdict stored


def test_an_announcement_wakes_its_submissions_poller_and_no_other(db) -> None:  # noqa: F811
    engine, settings, _ = db
    changed, quiet = enqueue(db, 2)
    looks: dict[int, int] = {changed: 0, quiet: 0}
    stamp = Watches(engine, POLL_S).stamp

    def counted(submission_id: int) -> tuple[object, ...]:
        looks[submission_id] += 1
        return stamp(submission_id)

    async def scenario() -> tuple[bool, str, dict[int, int]]:
        watches = Watches(engine, POLL_S, settings.url)  # listens in this event loop
        watches.stamp = counted  # type: ignore[method-assign]
        try:
            async with watches.follow(changed) as watch, watches.follow(quiet) as other:
                assert await watch.after(0, WAIT_S) and await other.after(0, WAIT_S)
                with write_session(engine) as s:
                    s.exec(update(Submission).where(Submission.id == changed)
                           .values(status=RUNNING))
                announce(settings.url, changed)
                seen = await watch.after(1, WAIT_S)
                return seen, watch.current().status, dict(looks)
        finally:
            watches.close()

    seen, status, counts = asyncio.run(scenario())
    assert seen and status == RUNNING
    assert counts == {changed: 2, quiet: 1}
    assert not list(folder(settings.url).glob(f"*{WATCHERS}"))  # closed: its bell is gone


def test_streams_poll_on_when_no_bell_can_be_made(db, tmp_path, monkeypatch) -> None:  # noqa: F811
    engine, settings, _ = db
    (sid,) = enqueue(db)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(doorbell, "folder", lambda url: blocker / "bells")  # cannot be made

    async def scenario() -> tuple[bool, bool]:
        watches = Watches(engine, 0.01, settings.url)
        try:
            async with watches.follow(sid) as watch:
                return watches.bell is None, await watch.after(0, WAIT_S)
        finally:
            watches.close()

    assert asyncio.run(scenario()) == (True, True)
