"""The JSON document of a run: every number, per rank, with the settings and the environment.

Ranks post raw facts (every rank's iteration times and wrong counts); here they become nccl-tests'
numbers: time aggregated over ranks (``-a``), algbw = size / time (GB = 1e9 B), busbw = algbw ×
factor.
The table and the chart are drawn from this document only, so they always agree with it.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import __version__
from .config import BenchConfig
from .monitor import Outcome

AGGREGATE: dict[str, Callable[[list[float]], float]] = {
    "rank0": lambda xs: xs[0], "avg": statistics.fmean, "min": min, "max": max}


def derive(row: dict[str, Any], aggregate: str) -> dict[str, Any]:
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


def group(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows by series, in the order the series first appear."""
    series: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = series.setdefault(row["series"], {
            "label": row["series"], "kind": row["kind"], "collective": row["collective"],
            "placement": row["placement"], "busbw_factor": row["busbw_factor"], "rows": []})
        entry["rows"].append(row)
    for entry in series.values():
        entry["avg_busbw"] = statistics.fmean(r["busbw"] for r in entry["rows"])
    return list(series.values())


def compare(series: list[dict[str, Any]]) -> list[dict[str, Any]]:
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


def build(cfg: BenchConfig, outcome: Outcome, meta: dict[str, Any]) -> dict[str, Any]:
    """The whole document."""
    series = group([derive(r, cfg.aggregate) for r in outcome.rows])
    wrong = [r["wrong"] for s in series for r in s["rows"] if r["wrong"] is not None]
    return {
        "tool": "cjudge bench", "version": __version__, "status": outcome.status,
        "message": outcome.message, "unfinished_ranks": outcome.unfinished,
        "rank_states": outcome.where, **meta, "config": asdict(cfg),
        "environment": outcome.env, "series": series, "comparison": compare(series),
        "wrong_total": sum(wrong) if wrong else None,
    }


def write(doc: dict[str, Any], path: Path) -> None:
    """Write the document as indented JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
