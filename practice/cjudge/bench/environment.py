"""What the numbers were measured on: versions, devices, ranks and hosts."""

from __future__ import annotations

import os
import platform
import socket
from typing import Any, TypedDict

import torch
import torch.distributed as dist


class RankInfo(TypedDict):
    """One rank's host, process and device."""

    rank: int
    local_rank: int
    host: str
    pid: int
    device: str
    device_name: str


class Environment(TypedDict, total=False):
    """What a run was measured on: the versions, the hosts and every rank's device (a rank makes
    every key; a reader falls back where one is missing, as where no rank reported: ``{}``)."""

    torch: str
    cuda: str | None
    nccl: str | None
    gloo: str
    process_group: str
    python: str
    platform: str
    world_size: int
    host_count: int
    hosts: list[str]
    cpu_count: int | None
    torch_threads: int
    ranks: list[RankInfo]


def device_name(device: torch.device) -> str:
    """The GPU's name, or the CPU's model."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def rank_info(rank: int, local_rank: int, device: torch.device) -> RankInfo:
    """This rank's host, process and device."""
    return {"rank": rank, "local_rank": local_rank, "host": socket.gethostname(),
            "pid": os.getpid(), "device": str(device), "device_name": device_name(device)}


def gather_environment(info: RankInfo, backend: str) -> Environment:
    """Every rank's ``info`` and the versions (a collective call: every rank must make it)."""
    ranks: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(ranks, info)
    hosts = sorted({r["host"] for r in ranks})
    nccl = torch.cuda.nccl.version() if backend == "nccl" else None
    return {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "nccl": ".".join(map(str, nccl)) if nccl else None,
        "gloo": f"built into torch {torch.__version__} (gloo has no version of its own)",
        "process_group": dist.get_backend(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "world_size": dist.get_world_size(),
        "host_count": len(hosts),
        "hosts": hosts,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "ranks": ranks,
    }
