"""The JSON document of a run: every number, per rank, with the settings and the environment.

Ranks post raw facts (every rank's iteration times and wrong counts); here they become nccl-tests'
numbers: time aggregated over ranks (``-a``), algbw = size / time (GB = 1e9 B), busbw = algbw ×
factor.
The table and the chart are drawn from this document only, so they always agree with it.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypedDict

from .. import __version__
from .config import BenchConfig
from .environment import Environment
from .measure import StepRow
from .monitor import Outcome

AGGREGATE: dict[str, Callable[[list[float]], float]] = {
    "rank0": lambda xs: xs[0], "avg": statistics.fmean, "min": min, "max": max}


class Row(StepRow):
    """A step's row with nccl-tests' numbers, from mean and from median iterations."""

    rank_seconds: list[float]
    rank_median_seconds: list[float]
    rank_iters: list[int]
    time_us: float
    algbw: float
    busbw: float
    median_us: float
    busbw_median: float
    wrong: int | None  # None: not checked


class SeriesResult(TypedDict):
    """One series' rows, one table of the results."""

    label: str
    kind: str
    collective: str
    placement: str
    busbw_factor: float
    rows: list[Row]
    avg_busbw: float


class Comparison(TypedDict):
    """At one size, the learner's busbw over the built-in's."""

    size: int
    builtin_busbw: float
    learner_busbw: float
    ratio: float
    ratio_median: float


class Started(TypedDict):
    """How the run was started."""

    command: list[str]
    started: str
    launcher: str


class RunMeta(Started):
    """How the run was started, and when it finished."""

    finished: str


class BenchDoc(RunMeta):
    """The whole document."""

    tool: str
    version: str
    status: str
    message: str
    unfinished_ranks: list[int]
    rank_states: list[str]
    #: the run's :class:`~.config.BenchConfig` as ``dataclasses.asdict`` gives it
    config: dict[str, Any]
    environment: Environment | None
    series: list[SeriesResult]
    comparison: list[Comparison]
    wrong_total: int | None


def derive(row: StepRow, aggregate: str) -> Row:
    """A raw row with nccl-tests' numbers, and the same from median iterations.

    nccl-tests' time is each rank's mean iteration (total / iters), aggregated over ranks; the
    median iteration, aggregated the same way, is less sensitive to a noisy machine.
    """
    means = [statistics.fmean(s) for s in row["rank_iter_seconds"]]
    medians = [statistics.median(s) for s in row["rank_iter_seconds"]]
    seconds, median = AGGREGATE[aggregate](means), AGGREGATE[aggregate](medians)
    algbw = row["size"] / seconds / 1e9
    checked = [w for w in row["rank_wrong"] if w is not None]
    return {**row, "rank_seconds": means, "rank_median_seconds": medians,
            "rank_iters": [len(s) for s in row["rank_iter_seconds"]],
            "time_us": seconds * 1e6, "algbw": algbw, "busbw": algbw * row["busbw_factor"],
            "median_us": median * 1e6,
            "busbw_median": row["size"] / median / 1e9 * row["busbw_factor"],
            "wrong": sum(checked) if checked else None}


def group(rows: list[Row]) -> list[SeriesResult]:
    """Rows by series, in the order the series first appear."""
    by_label: dict[str, list[Row]] = {}
    for row in rows:
        by_label.setdefault(row["series"], []).append(row)
    return [SeriesResult(label=label, kind=first["kind"], collective=first["collective"],
                         placement=first["placement"], busbw_factor=first["busbw_factor"], rows=mine,
                         avg_busbw=statistics.fmean(r["busbw"] for r in mine))
            for label, mine in by_label.items() for first in mine[:1]]


def compare(series: list[SeriesResult]) -> list[Comparison]:
    """Per size, the learner's busbw over the built-in's (exercise mode; else empty)."""
    learner = [s for s in series if s["kind"] == "learner"]
    builtin = [s for s in series if s["kind"] == "built-in"]
    if not learner or not builtin:
        return []
    mine = {r["size"]: r for r in learner[0]["rows"]}
    pairs = [(b, mine[b["size"]]) for b in builtin[0]["rows"] if b["size"] in mine]
    return [{"size": b["size"], "builtin_busbw": b["busbw"], "learner_busbw": m["busbw"],
             "ratio": m["busbw"] / b["busbw"], "ratio_median": m["busbw_median"] / b["busbw_median"]}
            for b, m in pairs]


def shown_path(path: str) -> str:
    """``path`` relative to the working directory when it lies under it, else as it is: a
    report names no more of the machine's folders than its command line did."""
    relative = os.path.relpath(path)
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative


def build(cfg: BenchConfig, outcome: Outcome, meta: RunMeta) -> BenchDoc:
    """The whole document."""
    series = group([derive(r, cfg.aggregate) for r in outcome.rows])
    wrong = [r["wrong"] for s in series for r in s["rows"] if r["wrong"] is not None]
    config = asdict(cfg)
    if config["learner"] is not None:
        config["learner"]["file"] = shown_path(config["learner"]["file"])
    return {
        "tool": "cjudge bench", "version": __version__, "status": outcome.status,
        "message": outcome.message, "unfinished_ranks": outcome.unfinished,
        "rank_states": outcome.where, **meta, "config": config,
        "environment": outcome.env, "series": series, "comparison": compare(series),
        "wrong_total": sum(wrong) if wrong else None,
    }


def write(doc: BenchDoc, path: Path) -> None:
    """Write the document as indented JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
