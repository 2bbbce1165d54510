"""The real runtime: every case's ranks as processes running real torch.distributed, each
rank's process group a channel to the judge's switch.

For each case the judge has its zygote (``zygote``, which imported torch once) fork
``world_size`` ranks (the environment torchrun would give them) or, with ``launcher="torchrun"``,
starts them through torchrun. It serves them the case's switch (``switch.server``) until they
all finish, deadlock, print too much or pass the time limit, then kills and reaps every one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from ..contract import values
from ..contract.protocol import CaseSpec, JobSpec, RankError, RankReport, RawCase, Stop
from ..rank.learner import exit_error
from ..switch import packed, shm
from ..switch.core import Switch
from ..switch.ending import ended, start_clock
from ..switch.server import SwitchServer
from .headroom import memory_headroom
from .outputs import RankOutputs
from .process_flags import give_back_large_buffers
from .zygote import ZygoteLauncher

POLL_S = 0.004
EXIT_REPORT_S = 1.0  # how long a rank that closed its channel has to be reported exited
STARTUP_LIMIT_S = 120.0  # ranks started by torchrun import torch first; the time limit starts after
PRACTICE_DIR = Path(__file__).resolve().parents[1]
#: how a rank that ended without its result is named, (English, Chinese)
PROCESS = ("the rank's process", "rank 的进程")
BEFORE_RETURN = ("before its function returned", "在函数返回之前")


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return cast(int, s.getsockname()[1])


def _job_dir() -> Path:
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="cjudge-", dir=base))


class TorchrunLauncher:
    """Ranks started by ``torchrun`` (``python -m torch.distributed.run``), the faithful path."""

    def __init__(self, job_dir: Path, world: int):
        port = free_port()  # torchrun's own rendezvous; the ranks talk only to the switch
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(PRACTICE_DIR), os.environ.get("PYTHONPATH", "")]), "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={world}",
             "--master-addr=127.0.0.1", f"--master-port={port}", "-m", "cjudge.real.rank",
             str(job_dir)], env=env, start_new_session=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.exits: dict[int, int] = {}

    def poll(self) -> dict[int, int]:
        """torchrun exits only when every rank has; ranks never exit on their own here."""
        return self.exits

    def kill(self) -> None:
        """Kill torchrun and every rank (they share its session's process group)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


def _kill_stragglers(pids: list[int]) -> None:
    """Kill ranks that live outside the launcher's process group (torchrun gives each worker a
    session of its own) and whatever shares their group."""
    for pid in pids:
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


Launcher = ZygoteLauncher | TorchrunLauncher
LAUNCHERS: dict[str, Callable[[Path, int], Launcher]] = {"fork": ZygoteLauncher,
                                                          "torchrun": TorchrunLauncher}


def _watch(job: JobSpec, server: SwitchServer, outputs: RankOutputs,
           launcher: Launcher) -> Stop | None:
    """Serve the switch until every rank is done, or the reason to stop them early.

    The time limit counts from the moment every rank has joined (so that torchrun's fresh
    interpreters importing torch are not charged to the learner; until then they have
    ``STARTUP_LIMIT_S``); when the case is over is ``switch.ending.ended``'s rule.
    """
    switch = server.switch
    launched = time.monotonic()
    while True:
        server.poll(POLL_S)
        now = time.monotonic()
        for rank in launcher.poll():  # ended with a result, the switch knows it; else gone
            if rank not in switch.finished:
                switch.finish(rank, "failed")
        if switch.deadline is None and server.joined():
            start_clock(switch, job, now)
        if switch.deadline is None and now - launched > STARTUP_LIMIT_S:
            start_clock(switch, job, now)  # the record names the limit the ranks had
            return "time_limit"
        end = ended(switch, now, outputs.total() > job["output_limit_bytes"])
        if end is not None:
            return end.stop


def _await_exits(server: SwitchServer, launcher: Launcher) -> None:
    """Give the ranks that closed their channel without a result a moment to be reported
    exited, so that their report says how they ended (the zygote tells it a little later)."""
    gone = [r for r in server.switch.finished if r not in server.records]
    deadline = time.monotonic() + EXIT_REPORT_S
    while any(r not in launcher.poll() for r in gone) and time.monotonic() < deadline:
        time.sleep(POLL_S)


def _reports(server: SwitchServer, exits: dict[int, int], stop: Stop | None) -> list[RankReport]:
    reports: list[RankReport | None] = []
    switch = server.switch
    for rank in range(switch.world):
        record = server.records.get(rank)
        if record is not None:
            reports.append(RankReport(rank=rank, state="failed" if record["error"] else "returned",
                                      output=record["output"], error=record["error"]))
        elif rank in exits:
            reports.append(RankReport(rank=rank, state="failed", output=None,
                                      error=exit_error(exits[rank], PROCESS, BEFORE_RETURN)))
        elif rank in switch.finished:  # its channel closed without a result: it is gone
            reports.append(RankReport(rank=rank, state="failed", output=None, error=RankError(
                kind="exception", type="SystemExit", traceback="", line=None,
                message=f"{PROCESS[0]} ended {BEFORE_RETURN[0]}",
                message_zh=f"{PROCESS[1]}{BEFORE_RETURN[1]}就结束了")))
        else:
            reports.append(None)
    return switch.reports(reports, stop)


def run_case(job: JobSpec, case: CaseSpec, launcher: str = "fork",
             elements: packed.Elements = packed.as_list) -> RawCase:
    """Run one case on real ranks and report what happened, without judging it; its result
    tensors' elements made ``elements`` (``packed.as_view``: left as bytes, to pass on)."""
    world = case["world_size"]
    job_dir = _job_dir()
    try:
        (job_dir / "job.json").write_text(json.dumps({**job,
                                                      "memory_headroom": memory_headroom(case)}))
        with RankOutputs(job_dir, world) as outputs:
            return _run(job, case, job_dir, outputs, launcher, elements)
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def _run(job: JobSpec, case: CaseSpec, job_dir: Path, outputs: RankOutputs,
         launcher: str, elements: packed.Elements) -> RawCase:
    """Launch the case's ranks, serve them the switch, kill them; what happened."""
    switch = Switch.for_case(job, case)
    server = SwitchServer(job_dir / "switch.sock", switch, elements,
                          area=shm.area_for(values.input_bytes(case)))
    start = time.monotonic()
    ranks = LAUNCHERS[launcher](job_dir, case["world_size"])
    give_back_large_buffers()  # in the judge only: the zygote exists by now
    if isinstance(ranks, ZygoteLauncher):
        server.expect(ranks.pids)
    try:
        stop = _watch(job, server, outputs, ranks)
        if stop == "deadlock":
            switch.mark_deadlock()
        _await_exits(server, ranks)
    finally:
        wall_ms = (time.monotonic() - start) * 1000
        exited = dict(ranks.poll())
        ranks.kill()
        _kill_stragglers(server.peer_pids())
        server.close()
    return RawCase(name=case["name"], ranks=_reports(server, exited, stop), trace=switch.trace(),
                   stop=stop, wall_ms=wall_ms, stdout=outputs.merged(job["output_limit_bytes"]))
