"""One step on one rank: the untimed correctness check, warm-up, then the timed iterations."""

from __future__ import annotations

from typing import Any, TypedDict

import torch.distributed as dist

from .channel import Channel
from .collectives import RankCtx, count_wrong
from .config import BenchConfig, Step
from .series import Series
from .timing import synchronize, time_iterations


class StepRow(TypedDict):
    """One step's numbers as rank 0 posts them: what was measured, and every rank's iterations."""

    series: str
    kind: str  # "built-in" or "learner"
    collective: str
    placement: str  # "in-place" or "out-of-place"
    size: int  # bytes
    count: int  # elements
    type: str
    redop: str
    root: int  # -1 for a collective without one
    busbw_factor: float
    rank_iter_seconds: list[list[float]]  # per rank, each timed iteration
    rank_wrong: list[int | None]  # per rank, wrong elements (None: not checked)


def check(series: Series, step: Step, ctx: RankCtx) -> int:
    """Wrong elements on this rank after one call on fresh inputs."""
    coll = series.collective
    lay = coll.layout(step.nbytes, ctx.world, ctx.dtype.itemsize)
    bufs = coll.buffers(lay, ctx)
    if series.check is not None:
        return series.check(bufs)
    raw = series.run(bufs)
    synchronize(ctx.device)
    return count_wrong(series.result(raw, bufs), coll.expected(lay, ctx))


def measure(series: Series, step: Step, ctx: RankCtx, cfg: BenchConfig,
            channel: Channel) -> StepRow:
    """Run the step, reporting each phase; every rank's numbers (the same on every rank).

    Every rank runs exactly ``cfg.warmup`` + ``cfg.iters`` calls: no rank decides alone when to stop.
    """
    coll = series.collective
    lay = coll.layout(step.nbytes, ctx.world, ctx.dtype.itemsize)
    wrong = check(series, step, ctx) if cfg.check else None
    channel.advance(ctx.rank)
    bufs = coll.buffers(lay, ctx)
    for _ in range(cfg.warmup):
        series.run(bufs)
    synchronize(ctx.device)
    channel.advance(ctx.rank)
    dist.barrier()
    seconds = time_iterations(lambda: series.run(bufs), cfg.iters, ctx.device)
    mine = {"seconds": seconds, "wrong": wrong}
    ranks: list[Any] = [None] * ctx.world
    dist.all_gather_object(ranks, mine)
    return {
        "series": series.label, "kind": series.kind, "collective": coll.name,
        "placement": "in-place" if coll.in_place else "out-of-place",
        "size": lay.nbytes, "count": lay.count, "type": cfg.dtype, "redop": coll.redop,
        "root": ctx.root if coll.rooted else -1, "busbw_factor": coll.factor(ctx.world),
        "rank_iter_seconds": [r["seconds"] for r in ranks],
        "rank_wrong": [r["wrong"] for r in ranks],
    }
