"""A worker whose heartbeat write fails is named by /healthz (issue 41): beside a worker that
serves, in a note; alone, as the reason the judge is degraded. Real heartbeat threads, each on
its own engine as in its own process; one engine's writes fail as on a full disk."""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlmodel import Session
from test_faults import FakePool
from test_queue import db  # noqa: F401 - a fixture

from server import health, worker
from server.db import make_engine
from server.models import utcnow
from server.sandbox import WarmPool

PERIOD_S = 0.05


def check(engine: Any, settings: Any) -> health.Health:
    with Session(engine) as session:
        return health.check(session, settings, utcnow() - timedelta(minutes=1))


def until(condition: Any, what: str, timeout_s: float = 60.0) -> None:
    """Poll ``condition``; past ``timeout_s`` (a bound for a hang, not a measure) fail."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not seen: {what}")
        time.sleep(0.1)


def test_a_worker_whose_heartbeat_write_fails_is_named_by_health(
        db, caplog) -> None:  # noqa: F811
    engine, settings, _ = db
    settings = settings.model_copy(update={"heartbeat_s": PERIOD_S})
    caplog.set_level(logging.WARNING, "server.worker")
    full = threading.Event()
    sick_engine = make_engine(settings.url)

    @event.listens_for(sick_engine, "before_cursor_execute")
    def disk_full(*_args: Any) -> None:
        if full.is_set():
            raise OperationalError("INSERT INTO workerstatus", {},
                                   OSError(28, "No space left on device"))

    pool: WarmPool = FakePool(False)  # type: ignore[assignment]
    beats = {"sick": worker.Heartbeat(sick_engine, "sick", "none", PERIOD_S),
             "well": worker.Heartbeat(engine, "well", "none", PERIOD_S)}
    for beat in beats.values():
        beat.start(pool)
    try:
        until(lambda: {w["id"] for w in check(engine, settings).workers} == {"sick", "well"},
              "both workers reporting")
        full.set()
        until(lambda: bool(check(engine, settings).notes), "a note on the silent worker")
        beside = check(engine, settings)
        assert beside.ok and [w["id"] for w in beside.workers] == ["well"]
        (note,) = beside.notes
        assert note.startswith("1 worker(s) stopped reporting (last report: sick ")
        assert note.endswith("a heartbeat write fails, or the worker stopped; 1 other(s) serve")

        beats["well"].stop()  # a clean stop: no report left behind
        alone = check(engine, settings)
        assert not alone.ok and alone.reasons[0].startswith("1 worker(s) stopped reporting")
        assert not alone.notes

        full.clear()  # the disk has room again: the next heartbeat is written
        until(lambda: check(engine, settings).ok, "health again once the write succeeds")
    finally:
        full.clear()
        for beat in beats.values():
            beat.stop()
        sick_engine.dispose()
    failed = [r.getMessage() for r in caplog.records if "writing the heartbeat" in r.getMessage()]
    assert len(failed) == 1, failed  # one line for the outage, not one per heartbeat
    assert sum("available again" in r.getMessage() for r in caplog.records) == 1
    assert "No space left on device" in failed[0]
