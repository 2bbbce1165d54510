"""Forking a case's ranks from a process that has imported torch already: the zygote.

Ranks forked from the judge itself would start as copies of its memory, which holds every case's
inputs: a rank's code could read its peers' inputs there instead of receiving them. The
:class:`Zygote` is forked once, before the judge learns any job (the runner and the CLI start it
first thing), and forks each case's ranks on request: nothing of any job was ever in its memory.
Each rank then gets only its own input, from the switch, when its graded call starts.

Torch is imported by the zygote, after its fork, not by the judge: the judge's process holds
the switch and the case, not torch's 190 MiB. :func:`start_zygote` returns once the zygote is
ready to fork, torch imported.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import select
import signal
import sys
import time
from pathlib import Path

from .huge_pages import collapse_anonymous_memory
from .process_flags import die_with

ZYGOTE_REAP_S = 0.002  # while ranks live, how often the zygote looks for those that exited
KILL_REPORT_S = 10.0  # how long a killed case waits for the zygote to report every rank reaped


def _rank_env(world: int) -> dict[str, str]:
    """What torchrun would set (a learner's file may read it); no rank connects anywhere with it."""
    return {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "WORLD_SIZE": str(world),
            "LOCAL_WORLD_SIZE": str(world), "GROUP_RANK": "0", "OMP_NUM_THREADS": "1"}


def _close_inherited_fds() -> None:
    """A forked rank keeps none of its parent's descriptors (the judge's channels above all)."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))


def _drop_inherited_log_handlers() -> None:
    """Forget the logging handlers of the process the zygote was forked from (a test runner's,
    say): in a rank their streams' descriptors are closed, or are other files by then. Torch's
    log records then reach the rank's own stderr through logging's last-resort handler."""
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.handlers.clear()


def fork_ranks(job_dir: Path, world: int) -> list[int]:
    """Fork ``world`` ranks of one case, in one process group, each killed with this process."""
    sys.stdout.flush()
    sys.stderr.flush()
    pids: list[int] = []
    env = _rank_env(world)
    parent = os.getpid()
    for rank in range(world):
        pid = os.fork()
        if pid == 0:
            try:
                die_with(parent)  # no rank outlives a judge that is killed or exits
                _close_inherited_fds()
                os.setpgid(0, pids[0] if pids else 0)
                os.environ.update(env, RANK=str(rank), LOCAL_RANK=str(rank))
                from .rank import rank_main  # imported already (``ready_to_fork``)
                rank_main(job_dir, rank, world)
            finally:
                os._exit(70)
        os.setpgid(pid, pids[0] if pids else pid)
        pids.append(pid)
    return pids


def ready_to_fork() -> None:
    """Do here, once, what every rank would otherwise do alike after its fork, and make forks
    cheap: the ``judge`` backend registered, ``torch.ops.c10d`` routed, the seccomp filter
    built; every object so far frozen out of the garbage collector (a rank's full collection
    would otherwise write to, and so copy, every page it inherits); memory in huge pages."""
    from .c10d_ops import route_c10d_ops
    from .confine import seccomp_filter
    from .judge_group import register_backend

    register_backend()
    route_c10d_ops()
    seccomp_filter()
    gc.collect()
    gc.freeze()
    collapse_anonymous_memory()


def _zygote_main(requests: int, replies: int) -> None:
    """Fork the ranks each request asks for; report every child that exits; end with EOF.
    While no rank is alive it sleeps until the next request."""
    from . import rank  # noqa: F401 - torch and all a rank runs: here, once, not in the judge

    ready_to_fork()
    os.write(replies, b'{"ready": true}\n')
    buffer, alive = b"", 0
    while True:
        ready, _, _ = select.select([requests], [], [], ZYGOTE_REAP_S if alive else None)
        while alive:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            alive -= 1
            os.write(replies, json.dumps({"exit": pid, "status": status}).encode() + b"\n")
        if not ready:
            continue
        chunk = os.read(requests, 1 << 16)
        if not chunk:
            return
        *lines, buffer = (buffer + chunk).split(b"\n")
        for line in lines:
            ask = json.loads(line)
            pids = fork_ranks(Path(ask["job_dir"]), ask["world"])
            alive += len(pids)
            os.write(replies, json.dumps({"pids": pids}).encode() + b"\n")


class Zygote:
    """The process that forks ranks for the judge (see the module's doc); start it before
    reading any job. It dies with the judge."""

    def __init__(self) -> None:
        requests, self._requests = os.pipe()
        self._replies, replies = os.pipe()
        judge = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(self._requests)
                os.close(self._replies)
                die_with(judge)
                _drop_inherited_log_handlers()
                _zygote_main(requests, replies)
            finally:
                os._exit(0)
        os.close(requests)
        os.close(replies)
        self._buffer = b""
        self.exits: dict[int, int] = {}  # pid -> wait status, as the zygote reported them
        self._ready = False
        while not self._ready:  # torch imported, the zygote prepared
            self.collect(timeout=None)

    def launch(self, job_dir: Path, world: int) -> list[int]:
        """Have the zygote fork one case's ranks; their pids."""
        ask = {"job_dir": str(job_dir), "world": world}
        os.write(self._requests, json.dumps(ask).encode() + b"\n")
        while (pids := self.collect(timeout=None)) is None:
            pass
        return pids

    def collect(self, timeout: float | None = 0) -> list[int] | None:
        """Take in what the zygote has said within ``timeout``: the exits it reported are kept
        in :attr:`exits`; the pids of the ranks it has just forked, if it said them."""
        ready, _, _ = select.select([self._replies], [], [], timeout)
        if not ready:
            return None
        chunk = os.read(self._replies, 1 << 16)
        if not chunk:
            raise RuntimeError("the judge's zygote process is gone")
        *lines, self._buffer = (self._buffer + chunk).split(b"\n")
        pids = None
        for reply in map(json.loads, lines):
            if "exit" in reply:
                self.exits[reply["exit"]] = reply["status"]
            elif "ready" in reply:
                self._ready = True
            else:
                pids = reply["pids"]
        return pids


_zygote: Zygote | None = None


def start_zygote() -> None:
    """Fork this process's zygote now, unless it has one: call it before learning any job (else
    the first case starts it, and the ranks may find what this process held by then)."""
    global _zygote
    if _zygote is None:
        _zygote = Zygote()


class ZygoteLauncher:
    """Ranks forked by this process's zygote."""

    def __init__(self, job_dir: Path, world: int):
        start_zygote()
        assert _zygote is not None
        self.zygote = _zygote
        self.pids = self.zygote.launch(job_dir, world)
        self.exits: dict[int, int] = {}

    def poll(self) -> dict[int, int]:
        """Ranks that have exited so far, with their wait status."""
        self.zygote.collect()
        for rank, pid in enumerate(self.pids):
            if pid in self.zygote.exits:
                self.exits[rank] = self.zygote.exits.pop(pid)
        return self.exits

    def kill(self) -> None:
        """Kill every rank and their process group; wait until the zygote has reaped them."""
        try:
            os.killpg(self.pids[0], signal.SIGKILL)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + KILL_REPORT_S
        while len(self.poll()) < len(self.pids) and time.monotonic() < deadline:
            self.zygote.collect(timeout=max(deadline - time.monotonic(), 0))
