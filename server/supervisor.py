"""Embedded workers: N ``python -m server.worker`` processes beside the server, restarted if
they die (after growing delays while they die young: no crash loop), stopped with it; and the
start-up's word on the jobs it finds running."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time

from sqlalchemy import Engine
from sqlmodel import Session

from . import jobqueue
from .models import utcnow

log = logging.getLogger("server.supervisor")
RESTART_DELAY_S = 2.0
#: a worker that dies sooner than this after its start died young: the next restart waits
#: twice as long as the last, up to ``RESTART_DELAY_MAX_S``
YOUNG_S = 60.0
RESTART_DELAY_MAX_S = 60.0


def report_running(engine: Engine) -> None:
    """Log the jobs found running at start-up: each is claimed again, before new work, once
    its lease has expired (at once, if its worker went with the last run)."""
    with Session(engine) as session:
        found = jobqueue.running_jobs(session)
    for row in found:
        log.warning("found submission %s running on worker %s (lease until %s UTC): it is "
                    "claimed again before new work once its lease expires", row.id,
                    row.worker_id, row.lease_expires_at)


def restart_delay(last_s: float, lived_s: float) -> float:
    """The wait before restarting a worker that lived ``lived_s`` after a wait of ``last_s``."""
    if lived_s >= YOUNG_S:
        return RESTART_DELAY_S
    return min(RESTART_DELAY_MAX_S, max(RESTART_DELAY_S, 2 * last_s))


class Supervisor:
    """Starts ``count`` workers with ``env`` and keeps them running until ``stop``."""

    def __init__(self, count: int, env: dict[str, str]) -> None:
        self.count = count
        self.started_at = utcnow()  # health measures a stalled queue from here at the earliest
        self.env = env
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * count
        self.spawned_at = [0.0] * count  # monotonic
        self.delays = [0.0] * count  # the wait before each worker's last restart
        self.due = [0.0] * count  # monotonic: when a dead worker is started again
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="supervisor", daemon=True)

    def start(self) -> None:
        """Start the workers and the thread that restarts them."""
        for i in range(self.count):
            self.procs[i] = self._spawn(i)
        self.thread.start()

    def alive(self) -> int:
        """How many workers are running."""
        return sum(1 for p in self.procs if p is not None and p.poll() is None)

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM every worker (each puts its submission back in the queue), then SIGKILL."""
        self.stopping.set()
        running = [p for p in self.procs if p is not None]
        for p in running:
            p.terminate()
        deadline = time.monotonic() + grace_s
        for p in running:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def _spawn(self, index: int) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "server.worker", "--parent-pid", str(os.getpid()),
                "--id", f"embedded-{os.getpid()}-{index}"]
        self.spawned_at[index] = time.monotonic()
        return subprocess.Popen(argv, env=self.env)

    def _watch(self) -> None:
        while not self.stopping.wait(0.5):
            for i, p in enumerate(self.procs):
                if p is None or self.stopping.is_set():
                    continue
                now = time.monotonic()
                if p.poll() is not None and not self.due[i]:
                    self.delays[i] = restart_delay(self.delays[i], now - self.spawned_at[i])
                    self.due[i] = now + self.delays[i]
                    log.warning("worker %d exited with %s; restarting it in %g s", i,
                                p.returncode, self.delays[i])
                elif self.due[i] and now >= self.due[i]:
                    self.due[i] = 0.0
                    self.procs[i] = self._spawn(i)
