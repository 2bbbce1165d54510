"""Timing back-to-back iterations: wall clock on CPUs, CUDA events on GPUs."""

from __future__ import annotations

import time
from collections.abc import Callable

import torch


def synchronize(device: torch.device) -> None:
    """Wait until everything queued on ``device`` has run (a no-op on CPUs)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_iterations(call: Callable[[], object], iters: int, device: torch.device) -> float:
    """Seconds per iteration of ``iters`` back-to-back calls, measured where the work runs.

    On a GPU the calls only queue work; events recorded on the current stream before and after
    (collectives make it wait for their own stream) time the work itself.
    """
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            call()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / iters
    begin = time.perf_counter()
    for _ in range(iters):
        call()
    return (time.perf_counter() - begin) / iters
