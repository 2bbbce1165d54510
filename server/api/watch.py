"""One poller per submission in this process: every event stream of a submission shares one
loop that reads the submission's one-row stamp every ``poll_s`` and, when it changed, the row;
the streams wait for its next version. Two hundred streams of one submission (tabs, reloads,
a class watching one submission) cost one database look per ``poll_s``, not two hundred. A
worker of this machine announces each change it commits (``doorbell.announce``): the poller
looks at once, so a verdict reaches its streams without waiting out a poll."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from sqlalchemy import Engine, Text, cast, func
from sqlmodel import Session, select
from starlette.concurrency import run_in_threadpool

from ..doorbell import WatchBell
from ..models import DONE, Submission

log = logging.getLogger(__name__)


class Watch:
    """A submission's row as its poller last read it, and a version that grows with each
    change (0: not read yet)."""

    def __init__(self) -> None:
        self.row: Submission | None = None
        self.error: BaseException | None = None
        self.version = 0
        self.followers = 0
        self._changed = asyncio.Event()
        self._announced = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def publish(self, row: Submission | None, error: BaseException | None = None) -> None:
        """A new version: ``row`` (detached), or the ``error`` that ended the poller."""
        self.row, self.error = row, error
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def announce(self) -> None:
        """A worker says the submission changed: the poller looks now."""
        self._announced.set()

    async def until_announced(self, timeout_s: float) -> None:
        """The poller's wait between looks: ``timeout_s``, or until a change is announced (one
        announced while it looked ends the next wait at once)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._announced.wait(), timeout_s)
        self._announced.clear()

    async def after(self, version: int, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for a version after ``version``; True if there is one."""
        if self.version > version:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), max(0.0, timeout_s))
        return self.version > version

    def current(self) -> Submission:
        """The row of the latest version (raises what ended the poller)."""
        if self.error is not None:
            raise self.error
        assert self.row is not None
        return self.row


class Watches:
    """This process's pollers, one per submission followed, each gone with its last stream;
    with ``database_url``, woken by this machine's workers' announcements (made in the event
    loop, with the first stream)."""

    def __init__(self, engine: Engine, poll_s: float, database_url: str | None = None) -> None:
        self.engine, self.poll_s = engine, poll_s
        self.watches: dict[int, Watch] = {}
        self.bell: WatchBell | None = None
        if database_url is not None:
            try:
                self.bell = WatchBell(database_url, self._on_announced)
            except OSError as exc:  # a hint only: without it, the streams see changes by polling
                log.warning("event streams poll without workers' announcements: %s", exc)

    def _on_announced(self, submission_ids: set[int]) -> None:
        for submission_id in submission_ids:
            watch = self.watches.get(submission_id)
            if watch is not None:
                watch.announce()

    def close(self) -> None:
        """Stop listening for announcements."""
        if self.bell is not None:
            self.bell.close()

    @contextlib.asynccontextmanager
    async def follow(self, submission_id: int) -> AsyncIterator[Watch]:
        """The submission's watch, polled while anyone follows it."""
        watch = self.watches.get(submission_id)
        if watch is None:
            watch = self.watches[submission_id] = Watch()
            watch.task = asyncio.create_task(self._poll(submission_id, watch))
        watch.followers += 1
        try:
            yield watch
        finally:
            watch.followers -= 1
            if not watch.followers:
                del self.watches[submission_id]
                assert watch.task is not None
                watch.task.cancel()

    def stamp(self, submission_id: int) -> tuple[object, ...]:
        """What changes when the submission does: cheap to read, unlike its cases."""
        with Session(self.engine) as session:
            return tuple(session.exec(select(
                Submission.status, Submission.attempts,
                func.length(cast(Submission.cases_so_far, Text))).where(
                Submission.id == submission_id)).one())

    def load(self, submission_id: int) -> Submission:
        """The submission's row, detached."""
        with Session(self.engine) as session:
            row = session.get_one(Submission, submission_id)
            session.expunge(row)
            return row

    async def _poll(self, submission_id: int, watch: Watch) -> None:
        last: tuple[object, ...] | None = None
        try:
            while True:
                now = await run_in_threadpool(self.stamp, submission_id)
                if now != last:  # the first time, and on every change: read it whole
                    last = now
                    row = await run_in_threadpool(self.load, submission_id)
                    watch.publish(row)
                    if row.status == DONE:
                        return  # a finished submission changes no more
                await watch.until_announced(self.poll_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - each stream raises it, as its own look would
            watch.publish(None, exc)
