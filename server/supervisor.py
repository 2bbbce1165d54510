"""Embedded workers: N ``python -m server.worker`` processes beside the server, restarted if
they die, stopped with it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time

from .models import utcnow

log = logging.getLogger("server.supervisor")
RESTART_DELAY_S = 2.0


class Supervisor:
    """Starts ``count`` workers with ``env`` and keeps them running until ``stop``."""

    def __init__(self, count: int, env: dict[str, str]) -> None:
        self.count = count
        self.started_at = utcnow()  # health measures a stalled queue from here at the earliest
        self.env = env
        self.procs: list[subprocess.Popen | None] = [None] * count
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

    def _spawn(self, index: int) -> subprocess.Popen:
        argv = [sys.executable, "-m", "server.worker", "--parent-pid", str(os.getpid()),
                "--id", f"embedded-{os.getpid()}-{index}"]
        return subprocess.Popen(argv, env=self.env)

    def _watch(self) -> None:
        while not self.stopping.wait(RESTART_DELAY_S):
            for i, p in enumerate(self.procs):
                if p is not None and p.poll() is not None and not self.stopping.is_set():
                    log.warning("worker %d exited with %s; restarting it", i, p.returncode)
                    self.procs[i] = self._spawn(i)
