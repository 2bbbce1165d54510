"""One step on one rank: the untimed correctness check, warm-up, then the timed iterations."""

from __future__ import annotations

from typing import Any

import torch.distributed as dist

from .channel import Channel
from .collectives import RankCtx, count_wrong
from .config import BenchConfig, Step
from .series import Series
from .timing import synchronize, time_iterations


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
            channel: Channel) -> dict[str, Any]:
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
