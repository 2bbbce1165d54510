"""The real runtime: every case's ranks as processes running real torch.distributed over gloo.

The judge imports torch once, then for each case has its zygote (``rank_fork``) fork
``world_size`` ranks (``env://`` exactly as torchrun sets it, a fresh port and process group
each time) or, with ``launcher="torchrun"``,
starts them through torchrun. It watches them (results, trace, output, states) until they all
finish, deadlock, print too much or pass the time limit, then kills and reaps every one.
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
from pathlib import Path

from .event_channel import EventChannel
from .learner import exit_error
from .protocol import CaseSpec, JobSpec, RankReport, RawCase, Stop
from .rank_files import RankOutputs, RankResults
from .rank_fork import ZygoteLauncher
from .rank_status import RankStatus

POLL_S = 0.004
DEADLOCK_GRACE_S = 1.0
FAILED_GRACE_S = 0.3
STARTUP_LIMIT_S = 120.0  # ranks started by torchrun import torch first; the time limit starts after
PRACTICE_DIR = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _job_dir() -> Path:
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="cjudge-", dir=base))


class TorchrunLauncher:
    """Ranks started by ``torchrun`` (``python -m torch.distributed.run``), the faithful path."""

    def __init__(self, job_dir: Path, world: int, port: int):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(PRACTICE_DIR), os.environ.get("PYTHONPATH", "")]), "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={world}",
             "--master-addr=127.0.0.1", f"--master-port={port}", "-m", "cjudge.rank_real",
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


LAUNCHERS = {"fork": ZygoteLauncher, "torchrun": TorchrunLauncher}
Launcher = ZygoteLauncher | TorchrunLauncher


def _watch(job: JobSpec, status: RankStatus, outputs: RankOutputs, channel: EventChannel,
           launcher: Launcher) -> Stop | None:
    """Wait until every rank is done, or the reason to stop them early.

    The time limit counts from the moment every rank has joined the group (so that torchrun's
    fresh interpreters importing torch are not charged to the learner).
    """
    launched = time.monotonic()
    start: float | None = None
    quiet_since, last_seen = launched, None
    while True:
        channel.poll(POLL_S)
        now = time.monotonic()
        exited = launcher.poll()
        states = status.read()
        done = [s in ("returned", "failed") or r in exited for r, (s, _) in enumerate(states)]
        if all(done):
            return None
        if outputs.total() > job["output_limit_bytes"]:
            return "output_limit"
        if start is None and all(s != "starting" for s, _ in states):
            start = now
        if now - (start or launched) > (job["time_limit_s"] if start else STARTUP_LIMIT_S):
            return "time_limit"
        seen = (states, len(channel.events))
        if seen != last_seen:
            quiet_since, last_seen = now, seen
        waiting = [s == "blocked" for r, (s, _) in enumerate(states) if not done[r]]
        failed = any(s == "failed" or r in exited for r, (s, _) in enumerate(states))
        if failed and all(waiting) and now - quiet_since > FAILED_GRACE_S:
            return None
        if all(waiting) and now - quiet_since > DEADLOCK_GRACE_S:
            return "deadlock"


def _reports(results: RankResults, states: list[tuple[str, int]],
             exits: dict[int, int]) -> list[RankReport]:
    reports = []
    for rank, (state, _) in enumerate(states):
        record = results.record(rank)
        if record is not None:
            state = "failed" if record["error"] else "returned"
            reports.append(RankReport(rank=rank, state=state, output=record["output"],
                                      error=record["error"]))
        elif rank in exits:
            reports.append(RankReport(rank=rank, state="failed", output=None,
                                      error=exit_error(exits[rank], "the rank's process",
                                                       "before its function returned")))
        else:  # no result: a "returned" or "failed" status here was forged by the rank itself
            alive = state if state in ("running", "blocked") else "killed"
            reports.append(RankReport(rank=rank, state=alive, output=None, error=None))
    return reports


def run_case(job: JobSpec, case: CaseSpec, launcher: str = "fork") -> RawCase:
    """Run one case on real ranks and report what happened, without judging it."""
    world = case["world_size"]
    job_dir = _job_dir()
    try:
        (job_dir / "job.json").write_text(json.dumps(job))
        for rank, tensor in enumerate(case["inputs"]):  # each rank reads its own, and only that
            (job_dir / f"input.{rank}").write_text(json.dumps(tensor))
        status = RankStatus(job_dir, world)
        with RankOutputs(job_dir, world) as outputs, RankResults(job_dir, world) as results:
            return _run(job, case, job_dir, status, outputs, results, launcher)
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)


def _run(job: JobSpec, case: CaseSpec, job_dir: Path, status: RankStatus, outputs: RankOutputs,
         results: RankResults, launcher: str) -> RawCase:
    """Launch the case's ranks, watch them, kill them; what they reported."""
    world = case["world_size"]
    channel = EventChannel(job_dir / "events.sock", outputs.size)
    start = time.monotonic()
    ranks = LAUNCHERS[launcher](job_dir, world, free_port())
    try:
        stop = _watch(job, status, outputs, channel, ranks)
    finally:
        wall_ms = (time.monotonic() - start) * 1000
        states, exited = status.read(), dict(ranks.poll())
        ranks.kill()
        _kill_stragglers(channel.pids())
    events = channel.drain()
    reports = _reports(results, states, exited)
    wire = channel.wire_bytes()
    for report in reports:
        if report["state"] == "returned" or report["rank"] in wire:
            report["wire_bytes"] = wire.get(report["rank"])
    return RawCase(name=case["name"], ranks=reports, events=events, stop=stop,
                   wall_ms=wall_ms, stdout=outputs.merged(job["output_limit_bytes"]))
