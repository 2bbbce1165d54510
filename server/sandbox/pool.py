"""A warm pool: sandboxes started ahead (torch already imported), each used for one job."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from .process import SandboxError, SandboxProcess

log = logging.getLogger(__name__)


class WarmPool:
    """Keeps ``size`` ready sandboxes; ``take`` hands one out and starts its replacement."""

    def __init__(self, factory: Callable[[], SandboxProcess], size: int,
                 ready_timeout_s: float) -> None:
        self.factory = factory
        self.size = max(1, size)
        self.ready_timeout_s = ready_timeout_s
        self.ready: queue.Queue[SandboxProcess] = queue.Queue()
        self.wanted = threading.Semaphore(self.size)  # one permit per sandbox to start
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._fill, name="warm-pool", daemon=True)
        self.thread.start()

    def take(self) -> SandboxProcess:
        """A ready sandbox (waiting for one to warm up if needed); ``SandboxError`` if none."""
        try:
            sandbox = self.ready.get(timeout=self.ready_timeout_s * 2)
        except queue.Empty:
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
                log.error("could not start a sandbox: %s", exc)
                if sandbox is not None:
                    sandbox.close()
                self.wanted.release()
                time.sleep(1.0)
                continue
            if self.stopping.is_set():
                sandbox.close()
                return
            self.ready.put(sandbox)
