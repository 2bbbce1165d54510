"""The simulated runtime in CPython: one case's ranks as threads over the pure-Python torch.

``run_case`` forks a child process per case, and the child runs the ranks as threads with the
simulated ``torch`` installed, watches them (finished, deadlocked, printing too much, past the
time limit) and sends the :class:`RawCase` back as one frame (``packed.framed``, as a sandbox
runner's reports): JSON, the ranks' result tensors as raw bytes beside it. A thread cannot be
killed, and a trace hook can neither stop a rank stuck in C code (``time.sleep``, a huge
``sum``) nor survive a learner's ``sys.settrace``: ending the child process stops everything,
every time, and keeps the parent's ``sys.modules`` and ``sys.stdout`` untouched. The child
reports on its own at the time limit; if it cannot (a rank holding the interpreter), the parent
kills it a little later.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
import time
import traceback
from typing import Any, TypedDict

from ..contract.protocol import CaseSpec, JobSpec, RankError, RankReport, RankState, RawCase, Stop
from ..rank.learner import compile_learner, exit_error, learner_error
from ..switch import packed
from ..switch.core import Switch
from ..switch.ending import ended, report_due, start_clock, unreported
from ..switch.threads import ThreadSwitch
from .capture import Capture, Router
from .rank import install_modules, run_rank

#: how long the parent waits past the time limit for the child's own report before killing it
KILL_GRACE_S = 2.0
_POLL_S = 0.1


class Answer(TypedDict, total=False):
    """What the child tells the parent: the case's facts, or the judge's own crash."""

    raw: RawCase
    crash: str  # the traceback


def run_case(job: JobSpec, case: CaseSpec) -> RawCase:
    """Run one case on simulated ranks (threads in a forked child) and report what happened."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            answer: Answer
            try:
                answer = Answer(raw=run_case_here(job, case))
            except BaseException:  # the judge's own fault: say so instead of dying silently
                answer = Answer(crash=traceback.format_exc())
            with os.fdopen(write_fd, "wb") as out:
                out.writelines(packed.framed(answer))
        finally:
            os._exit(0)
    os.close(write_fd)
    start = time.monotonic()
    data = _read_until(read_fd, report_due(job, start, KILL_GRACE_S))
    if data is None:
        os.kill(pid, signal.SIGKILL)
    status = os.waitpid(pid, 0)[1]
    wall_ms = (time.monotonic() - start) * 1000
    if data is None:
        return _ended(job, case, wall_ms, "running", None, "time_limit")
    if not data:
        return _ended(job, case, wall_ms, "failed",
                      exit_error(status, ("the ranks' process", "各 rank 的进程"),
                                 ("before the case ended", "在用例结束之前")), None)
    answer = _unpacked(data)
    if "crash" in answer:
        raise RuntimeError(f"the simulated runtime failed:\n{answer['crash']}")
    return answer["raw"]


def _unpacked(data: bytes) -> Answer:
    """The child's answer from its frame (each result's elements as the sim's ``array`` gave
    them: booleans stay 0 and 1)."""
    skeleton, payload = packed.split_frame(data)
    answer: Answer = packed.unpack(json.loads(skeleton), payload, _as_stored)  # as framed
    return answer


def _as_stored(view: memoryview, dtype: str) -> list[Any]:
    return view.tolist()


def _read_until(fd: int, deadline: float) -> bytes | None:
    """Everything written to ``fd`` until it closes, or None if ``deadline`` passes first."""
    chunks: list[bytes] = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _ended(job: JobSpec, case: CaseSpec, wall_ms: float, state: RankState,
           error: RankError | None, stop: Stop | None) -> RawCase:
    """The report of a child that could not report: killed at the time limit, or dead."""
    return unreported(job, case["name"], [state] * case["world_size"], stop, wall_ms, error)


def run_case_here(job: JobSpec, case: CaseSpec) -> RawCase:
    """Run the case's ranks as threads of this process (which it changes: call it in a child)."""
    world = case["world_size"]
    switch = Switch.for_case(job, case)
    try:
        code = compile_learner(job["code"], job["filename"])
    except (SyntaxError, ValueError) as exc:
        error = learner_error(exc, job["filename"])
        ranks = [RankReport(rank=r, state="failed", output=None, error=error) for r in range(world)]
        return RawCase(name=case["name"], ranks=ranks, trace=switch.trace(), stdout="", stop=None,
                       wall_ms=0.0)
    install_modules()
    fallback = sys.__stdout__
    assert fallback is not None  # the forked child keeps the judge's stdout
    sys.stdout = sys.stderr = Router(fallback)
    hub = ThreadSwitch(switch)
    capture = Capture(world, job["output_limit_bytes"])
    reports: list[RankReport | None] = [None] * world

    def rank_thread(rank: int) -> None:
        try:
            report = run_rank(job, rank, hub.port(rank), code, capture)
        except BaseException as exc:  # a learner's own BaseException subclass
            report = RankReport(rank=rank, state="failed", output=None,
                                error=learner_error(exc, job["filename"]))
        reports[rank] = report
        hub.call("finish", rank, report["state"])

    threads = [threading.Thread(target=rank_thread, args=(r,), daemon=True) for r in range(world)]
    start = time.monotonic()
    deadline = start_clock(switch, job, start)
    for t in threads:
        t.start()
    stop = _watch(hub, capture, deadline)
    wall_ms = (time.monotonic() - start) * 1000
    with hub.cond:
        if stop == "deadlock":
            switch.mark_deadlock()
        finished = dict(switch.finished)
        out = switch.reports(reports, stop)
        trace = json.loads(json.dumps(switch.trace()))  # a copy: blocked ranks hold its lists
    for rank in finished:
        threads[rank].join()
    return RawCase(name=case["name"], ranks=out, trace=trace, stdout=capture.merged(),
                   stop=stop, wall_ms=wall_ms)


def _watch(hub: ThreadSwitch, capture: Capture, deadline: float) -> Stop | None:
    """Wait until the case is over (``switch.ending.ended``): why its ranks were stopped."""
    while True:
        with hub.cond:
            version = hub.version
            end = ended(hub.switch, time.monotonic(), capture.exceeded)
        if end is not None:
            return end.stop
        hub.watch(version, min(max(deadline - time.monotonic(), 0.0), _POLL_S))
