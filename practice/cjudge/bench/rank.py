"""One rank's whole run, launched by ``bench`` itself or by torchrun (same environment)."""

from __future__ import annotations

import os
import traceback
from datetime import timedelta

import torch
import torch.distributed as dist

from ..rank.learner import learner_error, learner_frames
from .channel import Channel
from .collectives import COLLECTIVES, TORCH_DTYPES, RankCtx
from .config import BenchConfig, plan, runnable
from .environment import gather_environment, rank_info
from .learners import learner_series
from .measure import measure
from .series import Series, builtin_series


def pick_device(backend: str, local_rank: int) -> torch.device:
    """GPU ``LOCAL_RANK`` for NCCL (one rank per GPU), else the CPU."""
    if backend != "nccl":
        return torch.device("cpu")
    if local_rank >= torch.cuda.device_count():
        raise RuntimeError(f"LOCAL_RANK {local_rank} but this host has "
                           f"{torch.cuda.device_count()} GPU(s): one rank per GPU")
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    return device


def init_group(cfg: BenchConfig, local_world: int) -> None:
    """Join the group from the environment (env://, as torchrun sets it).

    NCCL runs with gloo beside it for CPU tensors, so a learner's torchrun-style module-level code
    on CPU tensors still works; the collectives measured are on the GPU, hence NCCL's.
    """
    timeout = timedelta(seconds=cfg.timeout_s + 60) if cfg.timeout_s else None
    if cfg.backend == "nccl":
        dist.init_process_group("cpu:gloo,cuda:nccl", timeout=timeout)
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // local_world))
        dist.init_process_group("gloo", timeout=timeout)


def make_series(cfg: BenchConfig, ctx: RankCtx) -> dict[str, Series]:
    """Every series of the run by label; loads the learner's file (the group exists by now)."""
    series = {name: builtin_series(COLLECTIVES[name], ctx) for name in runnable(cfg, ctx.world)}
    if cfg.learner is not None:
        coll = COLLECTIVES[cfg.learner.collective]
        series[cfg.learner.exercise] = learner_series(cfg.learner, coll, ctx)
    return series


def describe(exc: BaseException, cfg: BenchConfig) -> str:
    """The error as a traceback: only the learner's frames when it arose in their file."""
    if cfg.learner is not None and learner_frames(exc.__traceback__, cfg.learner.file):
        return learner_error(exc, cfg.learner.file)["traceback"]
    return "".join(traceback.format_exception(exc))


def rank_main(cfg: BenchConfig) -> int:
    """Run every step of the plan on this rank; 0, or 1 after posting the error."""
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    device = pick_device(cfg.backend, local_rank)
    init_group(cfg, int(os.environ.get("LOCAL_WORLD_SIZE", str(world))))
    channel = Channel.connect(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
    try:
        ctx = RankCtx(rank, world, cfg.root, TORCH_DTYPES[cfg.dtype], device)
        env = gather_environment(rank_info(rank, local_rank, device), cfg.backend)
        if rank == 0:
            channel.put("env", env)
        series = make_series(cfg, ctx)
        for index, step in enumerate(plan(cfg, world)):
            row = measure(series[step.series], step, ctx, cfg, channel)
            if rank == 0:
                channel.put(f"row/{index}", row)
            channel.advance(rank)
        dist.barrier()
    except Exception as exc:  # noqa: BLE001 - any failure is posted for the watcher to report
        channel.fail(rank, describe(exc, cfg))
        return 1
    dist.destroy_process_group()
    return 0
