"""A chart of busbw against message size: the learner's series beside torch's built-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from ..contract.units import format_size
from .environment import Environment
from .report import BenchDoc

COLORS = {"built-in": "tab:blue", "learner": "tab:purple"}


def _size_axis(ax: Any, sizes: list[int]) -> None:
    ax.set_xscale("log", base=2)
    step = -(-len(sizes) // 9)  # at most 9 labels
    ax.set_xticks(sizes[::step], [format_size(s).replace(" ", "\u2009") for s in sizes[::step]])
    ax.set_xlabel("message size (nccl-tests' size: the larger of the send and receive buffers)")


def draw(doc: BenchDoc, path: Path) -> None:
    """Write the chart to ``path`` (SVG or PNG, by its suffix)."""
    series, ratios = doc["series"], doc["comparison"]
    env: Environment = doc["environment"] or {}
    cfg = doc["config"]
    fig = Figure(figsize=(9, 7.5 if ratios else 5.5), layout="constrained")
    axes = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1.3]) if ratios else [fig.subplots()]
    ax = axes[0]
    for index, s in enumerate(series):
        color = COLORS[s["kind"]] if ratios else f"C{index}"
        who = "learner" if s["kind"] == "learner" else "torch"
        ax.plot([r["size"] for r in s["rows"]], [r["busbw"] for r in s["rows"]], marker="o",
                ms=4, color=color, label=f"{s['label']} ({who}), avg {s['avg_busbw']:.3g} GB/s")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    ax.set_title(f"busbw vs size: {cfg['backend']}, {env.get('world_size', '?')} ranks on "
                 f"{env.get('host_count', '?')} host(s), {cfg['dtype']}, torch {env.get('torch', '?')}, "
                 f"{cfg['iters']} iters, time {cfg['aggregate']} over ranks", fontsize=10)
    if ratios:
        low = axes[1]
        sizes = [c["size"] for c in ratios]
        low.plot(sizes, [100 * c["ratio"] for c in ratios], marker="o", ms=4, color="black",
                 label="from mean times (nccl-tests, the table)")
        low.plot(sizes, [100 * c["ratio_median"] for c in ratios], marker=".", ms=4, ls=":",
                 color="tab:gray", label="from median times (less noise)")
        low.legend(loc="upper left", fontsize=8)
        low.axhline(100, color="gray", lw=0.8, ls="--")
        low.set_ylabel("learner / torch (%)")
        low.set_ylim(bottom=0)
    for each in axes:
        each.grid(True, alpha=0.3)
    _size_axis(axes[-1], sorted({r["size"] for s in series for r in s["rows"]}))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
