"""A warm pool: sandboxes started ahead (torch already imported), each used for one job.

A sandbox that fails to start is retried after a growing delay (bounded), and each distinct
failure is logged once until sandboxes start again. After ``give_up_after`` failed starts in a
row the pool is *failing*: ``take`` then raises ``SandboxUnavailable`` at once instead of
waiting, so a submission ends instead of waiting forever.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .process import Sandbox, SandboxError

log = logging.getLogger(__name__)

#: first retry delay after a failed start, and the factor it grows by
BACKOFF_FIRST_S = 0.5
BACKOFF_FACTOR = 2.0


class SandboxUnavailable(SandboxError):
    """No sandbox can start here right now (after repeated failed starts)."""


@dataclass(frozen=True)
class PoolHealth:
    """What the pool knows of its own health."""

    failed_starts: int  # failed starts in a row (0 once one starts)
    failing: bool  # failed_starts reached the bound: submissions are not waited for
    last_error: str | None  # the last failure, None once one starts
    ready: int  # sandboxes waiting for a job


def failure_key(message: str) -> str:
    """A failure with what changes from one attempt to the next (numbers, hex ids) blanked:
    failures with the same key are the same failure."""
    return re.sub(r"0x[0-9a-f]+|\d+", "#", message)


def backoff_s(failures: int, cap_s: float) -> float:
    """The delay before the next start after ``failures`` failed starts in a row."""
    return min(cap_s, BACKOFF_FIRST_S * BACKOFF_FACTOR ** max(0, failures - 1))


class WarmPool:
    """Keeps ``size`` ready sandboxes; ``take`` hands one out and starts its replacement;
    ``on_close`` is called once it is closed."""

    def __init__(self, factory: Callable[[], Sandbox], size: int,
                 ready_timeout_s: float, give_up_after: int = 3, backoff_max_s: float = 30.0,
                 on_change: Callable[[], None] | None = None,
                 on_close: Callable[[], None] | None = None) -> None:
        self.factory = factory
        self.on_close = on_close  # called once the pool is closed (a fork server to stop)
        self.size = max(1, size)
        self.ready_timeout_s = ready_timeout_s
        self.give_up_after = max(1, give_up_after)
        self.backoff_max_s = backoff_max_s
        self.on_change = on_change
        self.ready: queue.Queue[Sandbox] = queue.Queue()
        self.wanted = threading.Semaphore(self.size)  # one permit per sandbox to start
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.failed_starts = 0
        self.last_error: str | None = None
        self.logged: set[str] = set()  # failure keys logged since sandboxes last started
        self.thread = threading.Thread(target=self._fill, name="warm-pool", daemon=True)
        self.thread.start()

    def health(self) -> PoolHealth:
        """The pool's health now."""
        with self.lock:
            return PoolHealth(self.failed_starts, self.failed_starts >= self.give_up_after,
                              self.last_error, self.ready.qsize())

    def take(self) -> Sandbox:
        """A ready sandbox (waiting for one to warm up if needed). ``SandboxUnavailable`` once
        ``give_up_after`` starts in a row have failed; ``SandboxError`` if none is ready in
        time."""
        deadline = time.monotonic() + self.ready_timeout_s * 2
        while True:
            try:
                sandbox = self.ready.get(timeout=0.1)
                break
            except queue.Empty:
                health = self.health()
                if health.failing:
                    raise SandboxUnavailable(
                        f"{health.failed_starts} sandbox starts in a row failed; the last: "
                        f"{health.last_error}") from None
                if time.monotonic() > deadline:
                    raise SandboxError("no sandbox became ready in time") from None
        self.wanted.release()
        return sandbox

    def close(self) -> None:
        """Stop warming and kill the spares."""
        self.stopping.set()
        self.wanted.release()
        self.thread.join(timeout=self.ready_timeout_s)
        while not self.ready.empty():
            self.ready.get_nowait().close()
        if self.on_close is not None:
            self.on_close()

    def _fill(self) -> None:
        while True:
            self.wanted.acquire()
            if self.stopping.is_set():
                return
            sandbox = None
            try:
                sandbox = self.factory()
                sandbox.wait_ready()
            except (SandboxError, OSError) as exc:
                if sandbox is not None:
                    sandbox.close()
                self.wanted.release()
                delay = self._failed(str(exc) or type(exc).__name__)
                if self.stopping.wait(delay):
                    return
                continue
            if self.stopping.is_set():
                sandbox.close()
                return
            self._started()
            self.ready.put(sandbox)

    def _failed(self, message: str) -> float:
        """Count a failed start, log it if it is new; the delay before the next start."""
        with self.lock:
            self.failed_starts += 1
            self.last_error = message
            failures = self.failed_starts
            new = failure_key(message) not in self.logged
            self.logged.add(failure_key(message))
        delay = backoff_s(failures, self.backoff_max_s)
        if new:
            log.error("could not start a sandbox (failed start %d in a row; retrying with "
                      "growing delays up to %g s, this failure is not logged again): %s",
                      failures, self.backoff_max_s, message)
        if self.on_change is not None and failures in (1, self.give_up_after):
            self.on_change()
        return delay

    def _started(self) -> None:
        """A sandbox started: the pool is healthy again."""
        with self.lock:
            failures, self.failed_starts, self.last_error = self.failed_starts, 0, None
            self.logged.clear()
        if failures:
            log.warning("sandboxes start again after %d failed starts", failures)
            if self.on_change is not None:
                self.on_change()
