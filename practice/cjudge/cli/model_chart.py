"""The chart of ``judge.py model``: modelled time against size, one curve per series."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from ..contract.units import format_size

if TYPE_CHECKING:  # model imports this module
    from .model import SweepDoc


def draw(doc: SweepDoc, path: Path) -> None:
    """Write the chart to ``path`` (SVG or PNG, by its suffix), crossings marked."""
    fig = Figure(figsize=(9, 5.5), layout="constrained")
    ax = fig.subplots()
    for index, s in enumerate(doc["series"]):
        ax.plot([r["size"] for r in s["rows"]], [r["time_s"] * 1e6 for r in s["rows"]],
                marker="o", ms=3, color=f"C{index}", label=s["label"])
    for c in doc["crossings"]:
        ax.axvline(c["size"], color="gray", ls="--", lw=0.8)
        ax.annotate(f"{c['a']} = {c['b']}\nat {format_size(c['size'])}", (c["size"], 0.04),
                    xycoords=("data", "axes fraction"), xytext=(6, 0), textcoords="offset points",
                    fontsize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("size S (bytes)")
    ax.set_ylabel("modelled time (µs)")
    topo = doc["topology"]
    links = ", ".join(f"{k}: α = {link['alpha_us']:g} µs, β = {link['beta_GBps']:g} GB/s"
                      for k in ("intra", "inter") if isinstance(link := topo.get(k), Mapping))
    ax.set_title(f"{doc['exercise']} ({doc['collective']}), {doc['ranks']} ranks on "
                 f"{topo['name']} ({links})" + ("" if doc["contention"] else ", contention-free"),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
