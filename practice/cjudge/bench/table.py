"""The results table in nccl-tests' layout, as rich on a terminal or nccl-tests' plain text.

One table per series, in nccl-tests' columns: size, count, type, redop, root, then time, algbw,
busbw and #wrong out-of-place, and the same in-place. A series is measured in one placement
(torch's API fixes it: ``all_reduce`` works in place, ``all_gather_into_tensor`` out of place),
so the other group reads N/A, as nccl-tests writes a value it did not measure. The learner's
busbw over the built-in's is a comment line after the tables, where parsers skip it. Both
renderings take their cells from :func:`cells`, formatted as nccl-tests prints them.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .environment import Environment
from .report import BenchDoc, Row, SeriesResult

FIXED = (("size", "(B)", 12), ("count", "(elements)", 12), ("type", "", 8), ("redop", "", 6),
         ("root", "", 6))
GROUP = (("time", "(us)", 7), ("algbw", "(GB/s)", 6), ("busbw", "(GB/s)", 6), ("#wrong", "", 6))
PLACEMENTS = ("out-of-place", "in-place")


def format_time(us: float) -> str:
    """Microseconds with nccl-tests' precision: fewer decimals for longer times."""
    if us >= 10000:
        return f"{us:.0f}"
    return f"{us:.1f}" if us >= 100 else f"{us:.2f}"


def fixed_cells(row: Row) -> list[str]:
    """size, count, type, redop, root."""
    return [str(row["size"]), str(row["count"]), row["type"], row["redop"], str(row["root"])]


def group_cells(row: Row | None) -> list[str]:
    """time, algbw, busbw, #wrong of one placement (N/A where it was not measured)."""
    if row is None:
        return ["N/A"] * len(GROUP)
    wrong = "N/A" if row["wrong"] is None else str(row["wrong"])
    return [format_time(row["time_us"]), f"{row['algbw']:.2f}", f"{row['busbw']:.2f}", wrong]


def format_ratio(ratio: float | None) -> str:
    """The learner's busbw as a percentage of the built-in's."""
    return "" if ratio is None else f"{ratio * 100:.1f}%"


def tables(doc: BenchDoc) -> list[SeriesResult]:
    """The series, one table each."""
    return list(doc["series"])


def cells(series: SeriesResult) -> list[list[str]]:
    """The body of one series' table, row by row: its placement's group filled, the other N/A."""
    return [fixed_cells(row) + [c for placement in PLACEMENTS for c in group_cells(
        row if series["placement"] == placement else None)] for row in series["rows"]]


def _title(series: SeriesResult) -> str:
    who = "learner" if series["kind"] == "learner" else "torch"
    return f"{series['label']} ({who}, {series['placement']})"


def _footer(series: SeriesResult) -> list[str]:
    wrong = sum(r["wrong"] or 0 for r in series["rows"])
    return [f"Out of bounds values : {wrong} {'OK' if wrong == 0 else 'FAILED'}",
            f"Avg bus bandwidth    : {series['avg_busbw']:.4f}  ({series['label']})"]


def ratio_lines(doc: BenchDoc) -> list[str]:
    """Per size, the learner's busbw over the built-in's (exercise mode; else none)."""
    if not doc["comparison"]:
        return []
    return ["busbw ratio (learner / built-in) by size:"] + [
        f"{c['size']:>12}  {format_ratio(c['ratio'])}" for c in doc["comparison"]]


def header_lines(doc: BenchDoc) -> list[str]:
    """The run's settings and every rank's device, as nccl-tests prints them before the table."""
    cfg = doc["config"]
    env: Environment = doc["environment"] or {}
    lines = [f"cjudge bench {doc['version']}: backend {cfg['backend']}, "
             f"{env.get('world_size', '?')} rank(s) on {env.get('host_count', '?')} host(s), "
             f"torch {env.get('torch', '?')}"
             + (f", NCCL {env['nccl']}" if env.get("nccl") else ""),
             f"type {cfg['dtype']}  warmup iters: {cfg['warmup']}  iters: {cfg['iters']}  "
             f"validation: {int(cfg['check'])}  rank aggregation: {cfg['aggregate']}"]
    if cfg["learner"]:
        lines.append(f"learner: {cfg['learner']['file']}")
    lines += [f" Rank {r['rank']:3d} Pid {r['pid']:7d} on {r['host']:>10} device {r['device']} "
              f"[{r['device_name']}]" for r in env.get("ranks", [])]
    return lines


def render_plain(doc: BenchDoc) -> str:
    """nccl-tests' text layout: '#' header lines, fixed-width columns, the footer."""
    cols = [w for *_, w in FIXED] + [w for _ in PLACEMENTS for *_, w in GROUP]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) for v, w in zip(values, cols, strict=True))

    fixed_width = sum(w + 2 for *_, w in FIXED)
    group_width = sum(w + 2 for *_, w in GROUP)
    out = [f"# {text}" for text in header_lines(doc)]
    for series in tables(doc):
        out += ["#", f"# {_title(series)}",
                "#" + " " * (fixed_width - 1) + "".join(p.center(group_width) for p in PLACEMENTS)]
        names = [n for n, *_ in FIXED] + [n for _ in PLACEMENTS for n, *_ in GROUP]
        units = [u for _, u, _ in FIXED] + [u for _ in PLACEMENTS for _, u, _ in GROUP]
        out += ["#" + line(names)[1:], "#" + line(units)[1:]]
        out += [line(row) for row in cells(series)]
        out += [f"# {text}" for text in _footer(series)]
    out += [f"# {text}" for text in ratio_lines(doc)]
    return "\n".join(out) + "\n"


def render_rich(doc: BenchDoc, console: Console) -> None:
    """The same cells as a rich table per series, with the footer below."""
    for text in header_lines(doc):
        console.print(text, style="dim", markup=False, highlight=False)
    for series in tables(doc):
        table = Table(title=_title(series), title_justify="left")
        for name, unit, _ in FIXED:
            table.add_column(f"{name}\n{unit}", justify="right")
        style = "cyan" if series["kind"] == "built-in" else "magenta"
        for placement in PLACEMENTS:
            for position, (name, unit, _) in enumerate(GROUP):
                top = placement if position == 0 else ""
                table.add_column(f"{top}\n{name} {unit}".rstrip(), justify="right",
                                 style=style if placement == series["placement"] else "dim",
                                 header_style=f"bold {style}")
        for row in cells(series):
            table.add_row(*row)
        console.print(table)
        for text in _footer(series):
            console.print(text, markup=False, highlight=False)
    for text in ratio_lines(doc):
        console.print(text, markup=False, highlight=False)
