"""Timing back-to-back iterations: wall clock on CPUs, CUDA events on GPUs."""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import pairwise

import torch


def synchronize(device: torch.device) -> None:
    """Wait until everything queued on ``device`` has run (a no-op on CPUs)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_iterations(call: Callable[[], object], iters: int, device: torch.device) -> list[float]:
    """Seconds of each of ``iters`` back-to-back calls, measured where the work runs.

    The marks between calls stall nothing: on a CPU they read the clock; on a GPU they are events
    recorded on the current stream (collectives make it wait for their own stream), read once
    all have run. Their sum is nccl-tests' total time; their spread shows the noise.
    """
    if device.type == "cuda":
        events = [torch.cuda.Event(enable_timing=True) for _ in range(iters + 1)]
        events[0].record()
        for event in events[1:]:
            call()
            event.record()
        events[-1].synchronize()
        return [a.elapsed_time(b) / 1e3 for a, b in pairwise(events)]
    marks = [time.perf_counter()]
    for _ in range(iters):
        call()
        marks.append(time.perf_counter())
    return [b - a for a, b in pairwise(marks)]
