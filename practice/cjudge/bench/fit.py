"""Model meets machine: α and β fitted from a sendrecv sweep, and modelled against measured time.

A sendrecv step of S bytes is one message each way, so its time is α + S/β. The fit is least
squares on the *relative* error (each point weighted 1/t²), so that 1 KiB counts as much as
64 MiB. Each size's time is its fastest iteration (the slowest rank's best): a shared machine
only ever adds time, so the best iteration is the one nearest to what the links can do. The
result is saved as the topology ``this-machine`` (in the git-ignored workspace), which
``judge.py model --topology this-machine`` and the next ``bench ring-allreduce`` use.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from rich.console import Console

from ..contract.units import format_seconds, format_size
from ..model.reference import ring_all_reduce
from ..model.replay import replay
from ..model.topology import THIS_MACHINE, ModelError, Topology, get_topology, topology_from_json
from .environment import Environment
from .report import BenchDoc, Row, SeriesResult

#: all ranks of a bench run are on this machine: one node as large as any run
ONE_NODE = 4096


@dataclass(frozen=True)
class Fit:
    """α (s) and β (B/s) with how well they fit."""

    alpha: float
    beta: float
    points: int
    rms_relative: float  # root mean square of (model − measured) / measured


def fit_alpha_beta(points: list[tuple[float, float]]) -> Fit:
    """Least squares of time = α + bytes/β over (bytes, seconds) points, relative error.

    α is clamped at 0 when the unconstrained fit makes it negative; :class:`ModelError` when the
    times do not grow with the size (no bandwidth to fit) or there are fewer than two sizes.
    """
    if len({x for x, _ in points}) < 2:
        raise ModelError("fitting α and β needs sendrecv times at two sizes or more")
    w = [1 / t**2 for _, t in points]
    sw = sum(w)
    sx = sum(wi * x for wi, (x, _) in zip(w, points, strict=True))
    st = sum(wi * t for wi, (_, t) in zip(w, points, strict=True))
    sxx = sum(wi * x * x for wi, (x, _) in zip(w, points, strict=True))
    sxt = sum(wi * x * t for wi, (x, t) in zip(w, points, strict=True))
    slope = (sw * sxt - sx * st) / (sw * sxx - sx * sx)
    alpha = (st - slope * sx) / sw
    if alpha < 0:
        alpha, slope = 0.0, sxt / sxx
    if slope <= 0:
        raise ModelError("sendrecv times do not grow with the size: no bandwidth to fit")
    rms = math.sqrt(sum(((alpha + slope * x) / t - 1) ** 2 for x, t in points) / len(points))
    return Fit(alpha, 1 / slope, len(points), rms)


def best_seconds(row: Row) -> float:
    """A row's fastest iteration: each rank's best, the slowest of those."""
    return max(min(times) for times in row["rank_iter_seconds"])


def _series(doc: BenchDoc, label: str) -> SeriesResult | None:
    return next((s for s in doc["series"] if s["label"] == label), None)


def sendrecv_fit(doc: BenchDoc) -> Fit | None:
    """The fit of this run's sendrecv series (best iterations), if it measured one."""
    series = _series(doc, "sendrecv")
    if series is None:
        return None
    return fit_alpha_beta([(r["size"], best_seconds(r)) for r in series["rows"]])


def save(fit: Fit, doc: BenchDoc, path: Path) -> Topology:
    """Write ``fit`` as the topology ``this-machine``; the topology."""
    env: Environment = doc.get("environment") or {}
    cfg = doc["config"]
    entry = {
        "title": f"this machine ({cfg['backend']}, {env.get('world_size', '?')} ranks, fitted)",
        "gpus_per_node": ONE_NODE, "nodes": 1,
        "intra": {"alpha_us": fit.alpha * 1e6, "beta_GBps": fit.beta / 1e9},
        "source": f"judge.py bench sendrecv sweep, {doc.get('finished', '')}: least squares "
                  f"(relative) on {fit.points} sizes, rms error {100 * fit.rms_relative:.1f} %",
        "fitted": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({THIS_MACHINE: entry}, indent=1) + "\n", encoding="utf-8")
    return topology_from_json(THIS_MACHINE, entry)


class Modelled(TypedDict):
    """One size of a series: its modelled time beside the measured one."""

    series: str
    size: int
    measured_s: float
    modelled_s: float
    ratio: float  # modelled / measured


def modelled_vs_measured(doc: BenchDoc, topo: Topology) -> list[Modelled]:
    """Per size, the ring all-reduce's modelled time beside the measured one.

    For the learner's ``ring-allreduce`` series, and torch's ``all_reduce`` (modelled as a ring).
    """
    env: Environment = doc.get("environment") or {}
    world = env.get("world_size") or 0
    if world < 2:
        return []
    trace, run = ring_all_reduce(world, 1024 * world), 1024 * world
    out: list[Modelled] = []
    for series in doc["series"]:
        if series["label"] not in ("ring-allreduce", "all_reduce"):
            continue
        for r in series["rows"]:
            modelled, measured = replay(trace, topo, r["size"] / run).time, best_seconds(r)
            out.append({"series": series["label"], "size": r["size"], "measured_s": measured,
                        "modelled_s": modelled, "ratio": modelled / measured})
    return out


def report(doc: BenchDoc, console: Console, path: Path) -> None:
    """Fit (when the run measured sendrecv), save, and print modelled vs measured for the ring."""

    def say(text: str) -> None:
        """One line of the model's notes, a comment line as in nccl-tests' tables."""
        console.print(f"# {text}", markup=False, highlight=False, soft_wrap=True)

    try:
        fit = sendrecv_fit(doc)
    except ModelError as exc:
        console.print(f"# model: cannot fit α, β: {exc}", markup=False, style="yellow",
                      soft_wrap=True)
        return
    if fit is not None:
        topo = save(fit, doc, path)
        say(f"model: fitted α = {format_seconds(fit.alpha)}, β = {fit.beta / 1e9:.3g} GB/s from "
            f"{fit.points} sendrecv sizes (best iterations; rms error {100 * fit.rms_relative:.1f} "
            f"%); saved as topology {THIS_MACHINE} in {path}")
    else:
        try:
            topo = get_topology(THIS_MACHINE, path)
        except ModelError:
            if any(s["label"] in ("ring-allreduce", "all_reduce") for s in doc["series"]):
                say("model: no fitted α, β yet: run `judge.py bench --collectives sendrecv` to "
                    "fit them")
            return
        link = topo.links["intra"]
        say(f"model: this machine's fitted α = {format_seconds(link.alpha)}, "
            f"β = {link.beta / 1e9:.3g} GB/s ({path})")
    rows = modelled_vs_measured(doc, topo)
    if rows:
        say("model: the ring all-reduce, modelled on this machine against measured (best "
            "iteration):")
        say(f"{'series':>14} {'size':>9} {'measured':>9} {'modelled':>9} {'model/measured':>15}")
    for r in rows:
        say(f"{r['series']:>14} {format_size(r['size']):>9} {format_seconds(r['measured_s']):>9} "
            f"{format_seconds(r['modelled_s']):>9} {r['ratio']:>15.2f}")
