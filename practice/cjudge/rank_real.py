"""One rank's life on real torch: join the group, import the learner's file, run, report, wait.

Run in a process forked from the judge (``runtime_real``) or started by ``torchrun``
(``python -m cjudge.rank_real JOB_DIR``): both read the job from ``JOB_DIR`` and write their
events, result and output there. A rank that has finished stays alive until the judge kills it,
so that its peers hang (a deadlock the judge can describe) instead of crashing on a closed socket.
Trace events go to the judge over a socket as they happen, not into a file the learner could edit.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, NoReturn

import torch
import torch.distributed as dist

from .comm_monitor import CommMonitor
from .confine import confine_rank
from .group_lifecycle import group_owned_by_judge
from .learner import classify_error, compile_learner, exec_learner
from .process_flags import set_dumpable
from .protocol import JobSpec, TensorData, TraceEvent
from .rank_files import open_own, redirect_output
from .rank_status import RankSlot

#: a rank may write at most this much to any file (its output is cut at the job's limit anyway)
FILE_SIZE_LIMIT = 64 * 2**20
#: memory a rank may allocate beyond what it holds once the group exists (a MemoryError past it)
MEMORY_HEADROOM = 2**30
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64}


def _limit_memory() -> None:
    """Cap the rank's data segment at what it uses now plus :data:`MEMORY_HEADROOM`."""
    with open(f"/proc/{os.getpid()}/status") as f:
        used = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmData:"))
    resource.setrlimit(resource.RLIMIT_DATA, (used + MEMORY_HEADROOM, used + MEMORY_HEADROOM))


def _patch_wait(status: RankSlot) -> None:
    """Mark the rank blocked while it waits on any communication request."""
    work = torch._C._distributed_c10d.Work
    original = work.__dict__["wait"]

    def wait(self: Any, *args: Any, **kwargs: Any) -> Any:
        status.set("blocked")
        try:
            return original(self, *args, **kwargs)
        finally:
            status.set("running")

    work.wait = wait


def to_data(value: Any) -> TensorData | None:
    """A tensor as plain data, or None if ``value`` is not a tensor."""
    if not isinstance(value, torch.Tensor):
        return None
    flat = value.detach().cpu().contiguous().reshape(-1)
    return TensorData(shape=list(value.shape), dtype=str(value.dtype).removeprefix("torch."),
                      data=flat.tolist())


def _take_input(path: Path) -> TensorData:
    """This rank's input, read and deleted before it joins the group: by the time any rank
    runs the learner's code (after every rank has joined), no rank's input is left to read."""
    mine: TensorData = json.loads(path.read_text())
    path.unlink()
    return mine


def _make_input(spec: TensorData) -> torch.Tensor:
    return torch.tensor(spec["data"], dtype=DTYPES[spec["dtype"]]).reshape(spec["shape"])


def run_rank(job: JobSpec, mine: TensorData, rank: int, world: int, job_dir: Path,
             status: RankSlot) -> dict[str, Any]:
    """Join the group, import the learner's file, call the graded function; the result record."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(str(job_dir / "events.sock"))
    channel.sendall(json.dumps({"rank": rank, "pid": os.getpid()}).encode() + b"\n")

    def emit(event: TraceEvent) -> None:
        channel.sendall(json.dumps(event).encode() + b"\n")

    def mark(phase: str) -> None:
        """Tell the judge the graded call starts or ends, and wait until it has looked."""
        sys.stdout.flush()
        channel.sendall(json.dumps({"phase": phase}).encode() + b"\n")
        channel.recv(1)

    dist.init_process_group("gloo", timeout=timedelta(seconds=job["time_limit_s"] + 60))
    # a rank leaves init_process_group once its own connections are made, while a slower peer
    # may still be looking up others' addresses in the store that rank 0 serves: rank 0's
    # replies would land in its graded call's write count. Past this barrier every rank is done.
    dist.barrier()
    _patch_wait(status)
    filename = job["filename"]
    monitor = CommMonitor(rank, world, job["allowed"], filename, emit)
    _limit_memory()
    confine_rank()  # from here on, only the group's traced primitives reach the other ranks
    status.set("running")
    try:
        with group_owned_by_judge():
            return _call_learner(job, mine, rank, filename, monitor, mark)
    except BaseException as exc:  # noqa: BLE001 - every learner failure is reported, none escapes
        return {"output": None, "error": classify_error(exc, filename)}


def _call_learner(job: JobSpec, mine: TensorData, rank: int, filename: str, monitor: CommMonitor,
                  mark: Callable[[str], None]) -> dict[str, Any]:
    """Import the learner's file on this rank, then make the graded call under the monitor."""
    namespace = exec_learner(compile_learner(job["code"], filename), f"learner_rank{rank}")
    function = namespace.get(job["function"])
    if not callable(function):
        raise NameError(f"your file must define a function `{job['function']}` "
                        f"(你的文件需要定义函数 `{job['function']}`)")
    argument = _make_input(mine)
    mark("start")
    try:
        with monitor:
            returned = function(argument)
    finally:
        mark("end")
    output = argument if job["output"] == "inplace" else returned
    return {"output": to_data(output), "error": None}


def rank_main(job_dir: Path, rank: int, world: int) -> NoReturn:
    """The whole life of one rank; never returns (the judge kills it when the case is over)."""
    set_dumpable(True)  # the judge reads its /proc/<pid>/io (the judge may be undumpable)
    status = RankSlot(job_dir, rank)  # mapped, its name deleted: before the group forms
    redirect_output(job_dir, rank)  # its name deleted: before the group forms
    result = open_own(job_dir, "result", rank)  # the same
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    torch.set_num_threads(1)
    job: JobSpec = json.loads((job_dir / "job.json").read_text())
    mine = _take_input(job_dir / f"input.{rank}")
    record = run_rank(job, mine, rank, world, job_dir, status)
    sys.stdout.flush()
    os.write(result, json.dumps(record).encode())
    status.set("failed" if record["error"] else "returned")
    while True:
        signal.pause()


if __name__ == "__main__":
    rank_main(Path(sys.argv[1]), int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
