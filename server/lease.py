"""Keeping a claimed submission's lease alive from a background thread while it is graded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import Engine

from . import jobqueue
from .db import write_session


class LeaseKeeper:
    """Renews ``claim``'s lease every third of ``lease_s``; calls ``on_lost`` if it was lost.
    Made at once after the claim (the lease's start)."""

    def __init__(self, engine: Engine, claim: jobqueue.Claim, lease_s: float,
                 on_lost: Callable[[], None]) -> None:
        self.engine = engine
        self.claim = claim
        self.lease_s = lease_s
        self.on_lost = on_lost
        self.lost = False
        self.renewed_at = time.monotonic()  # the last time the lease was known to be ours
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="lease", daemon=True)
        self.thread.start()

    def lease_ends(self) -> float:
        """When (monotonic) the lease ends unless renewed again: its last renewal's term."""
        return self.renewed_at + self.lease_s

    def stop(self) -> None:
        """Stop renewing."""
        self.done.set()
        self.thread.join()

    def _run(self) -> None:
        while not self.done.wait(self.lease_s / 3):
            asked = time.monotonic()
            try:
                with write_session(self.engine) as session:
                    kept = jobqueue.renew(session, self.claim, self.lease_s)
            except Exception:  # noqa: BLE001 - a database hiccup: try again next period
                continue
            if not kept:
                self.lost = True
                self.on_lost()
                return
            self.renewed_at = asked
