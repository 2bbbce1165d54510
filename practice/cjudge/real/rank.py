"""One rank's life on real torch: connect to the switch, import the learner's file, run, report.

Run in a process forked by the judge's zygote (``real.runtime``) or started by ``torchrun``
(``python -m cjudge.real.rank JOB_DIR``). The rank's only way to the others is its channel to the
judge's switch (``JOB_DIR/switch.sock``), opened before any learner code runs and carrying every
communication call (``judge_group``), its case input (when its graded call starts) and its
result (when it ends). Its printed output goes to a judge-held file whose name it deletes.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import sys
import warnings
from pathlib import Path
from typing import Any, NoReturn

import torch

from ..contract import values
from ..contract.protocol import JobSpec, TensorData
from ..rank.learner import classify_error, compile_learner, exec_learner, graded_call, learner_function
from ..switch.wire import EndRecord, widen
from . import cuda_noop
from .c10d_ops import route_c10d_ops
from .confine import confine_rank
from .group_lifecycle import group_owned_by_judge
from .headroom import MEMORY_HEADROOM
from .judge_group import ChannelPort, install, payload_of
from .outputs import redirect_output

#: a rank may write at most this much to any file (its output is cut at the job's limit anyway)
FILE_SIZE_LIMIT = 64 * 2**20
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "int32": torch.int32, "int8": torch.int8, "bool": torch.bool}


def _limit_memory(headroom: int) -> None:
    """Cap the rank's data segment at what it uses now plus ``headroom``."""
    with open(f"/proc/{os.getpid()}/status") as f:
        used = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmData:"))
    resource.setrlimit(resource.RLIMIT_DATA, (used + headroom, used + headroom))


def to_data(value: Any) -> TensorData | None:
    """A tensor as plain data, or None if ``value`` is not a tensor."""
    if not isinstance(value, torch.Tensor):
        return None
    flat = value.detach().cpu().contiguous().reshape(-1)
    return TensorData(shape=list(value.shape), dtype=str(value.dtype).removeprefix("torch."),
                      data=flat.tolist())


def to_bytes(value: Any) -> TensorData | None:
    """A tensor with its elements as bytes (``switch.packed`` sends them as they are), or None
    if ``value`` is not a tensor. A dtype the judge does not compare keeps no elements: the
    judge refuses it by its name."""
    if not isinstance(value, torch.Tensor):
        return None
    name = str(value.dtype).removeprefix("torch.")
    flat = value.detach().cpu().contiguous().reshape(-1)
    data: object = payload_of(flat) if name in DTYPES else []
    return TensorData(shape=list(value.shape), dtype=name, data=data)  # type: ignore[typeddict-item]


def _make_input(spec: TensorData) -> torch.Tensor:
    """The tensor of ``spec``: over the bytes the judge sent, or made of a list of numbers."""
    data: Any = spec["data"]
    if isinstance(data, torch.Tensor):
        return data.reshape(spec["shape"])
    return torch.tensor(data, dtype=DTYPES[spec["dtype"]]).reshape(spec["shape"])


def connect(job_dir: Path, rank: int) -> socket.socket:
    """The rank's channel to the switch, introduced by its rank."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    widen(channel)
    channel.connect(str(job_dir / "switch.sock"))
    return channel


def run_rank(job: JobSpec, port: ChannelPort) -> EndRecord:
    """Join the group, import the learner's file, make the graded call; the result record."""
    port.hello()
    install(port)
    cuda_noop.install(port.rank)  # the CPU lane: real code's CUDA calls do nothing, noted
    route_c10d_ops()
    _limit_memory(job.get("memory_headroom", MEMORY_HEADROOM))
    confine_rank()  # from here on, only the channel to the switch reaches the other ranks
    try:
        with group_owned_by_judge():
            return _call_learner(job, port)
    except BaseException as exc:  # noqa: BLE001 - every learner failure is reported, none escapes
        return {"output": None, "error": classify_error(exc, job["filename"])}


def _call_learner(job: JobSpec, port: ChannelPort) -> EndRecord:
    """Import the learner's file on this rank, then make the graded call framed by the switch."""
    namespace = exec_learner(compile_learner(job["code"], job["filename"]),
                             f"learner_rank{port.rank}")
    learner_function(namespace, job["function"])
    mine = port.begin()
    if mine is None:
        raise RuntimeError("the judge sent no input for this rank")
    output = graded_call(namespace, job["function"], job["output"], mine, _make_input, to_data,
                         port, job["filename"])
    return {"output": values.encode(output, to_bytes), "error": None}


def rank_main(job_dir: Path, rank: int, world: int) -> NoReturn:
    """The whole life of one rank; it exits once the judge has its result."""
    redirect_output(job_dir, rank)  # its name deleted: before any learner code runs
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    torch.set_num_threads(1)
    # torch's notice that a collective has a newer name is the judge's noise, not the learner's
    warnings.filterwarnings("ignore", message=r"`torch\.distributed\.\w+` is deprecated",
                            category=FutureWarning)
    job: JobSpec = json.loads((job_dir / "job.json").read_text())
    port = ChannelPort(connect(job_dir, rank), rank, world, job["allowed"], job["filename"])
    record = run_rank(job, port)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        port.end(record)
    except RuntimeError as exc:  # e.g. a result too large for the channel
        port.end({"output": None, "error": classify_error(exc, job["filename"])})
    os._exit(0)


if __name__ == "__main__":
    rank_main(Path(sys.argv[1]), int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
