"""The results table with nccl-tests' columns, as rich on a terminal or nccl-tests' plain text.

Both renderings take their cells from :func:`cells`, formatted as nccl-tests prints them.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from rich.console import Console
from rich.table import Table

FIXED = (("size", "(B)", 12), ("count", "(elements)", 12), ("type", "", 8), ("redop", "", 6),
         ("root", "", 6))
GROUP = (("time", "(us)", 7), ("algbw", "(GB/s)", 6), ("busbw", "(GB/s)", 6), ("#wrong", "", 6))
RATIO = ("ratio", "busbw", 7)


def format_time(us: float) -> str:
    """Microseconds with nccl-tests' precision: fewer decimals for longer times."""
    if us >= 10000:
        return f"{us:.0f}"
    return f"{us:.1f}" if us >= 100 else f"{us:.2f}"


def fixed_cells(row: dict[str, Any]) -> list[str]:
    """size, count, type, redop, root."""
    return [str(row["size"]), str(row["count"]), row["type"], row["redop"], str(row["root"])]


def group_cells(row: dict[str, Any] | None) -> list[str]:
    """time, algbw, busbw, #wrong of one series (blank when it has no row at this size)."""
    if row is None:
        return [""] * len(GROUP)
    wrong = "N/A" if row["wrong"] is None else str(row["wrong"])
    return [format_time(row["time_us"]), f"{row['algbw']:.2f}", f"{row['busbw']:.2f}", wrong]


def format_ratio(ratio: float | None) -> str:
    """The learner's busbw as a percentage of the built-in's."""
    return "" if ratio is None else f"{ratio * 100:.1f}%"


def tables(doc: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The series of each table: side by side in exercise mode, one table each otherwise."""
    if any(s["kind"] == "learner" for s in doc["series"]):
        return [doc["series"]]
    return [[s] for s in doc["series"]]


def cells(series: list[dict[str, Any]], ratios: dict[int, float]) -> list[list[str]]:
    """The body of one table, row by row."""
    body = []
    for rows in zip_longest(*(s["rows"] for s in series)):
        first = next(r for r in rows if r is not None)
        line = fixed_cells(first) + [c for r in rows for c in group_cells(r)]
        if len(series) > 1:
            line.append(format_ratio(ratios.get(first["size"])))
        body.append(line)
    return body


def _title(series: dict[str, Any]) -> str:
    who = "learner" if series["kind"] == "learner" else "torch"
    return f"{series['label']} ({who}, {series['placement']})"


def _footer(doc: dict[str, Any], series: list[dict[str, Any]]) -> list[str]:
    wrong = sum(r["wrong"] or 0 for s in series for r in s["rows"])
    lines = [f"Out of bounds values : {wrong} {'OK' if wrong == 0 else 'FAILED'}"]
    lines += [f"Avg bus bandwidth    : {s['avg_busbw']:.4f}  ({s['label']})" for s in series]
    return lines


def _ratios(doc: dict[str, Any]) -> dict[int, float]:
    return {c["size"]: c["ratio"] for c in doc["comparison"]}


def header_lines(doc: dict[str, Any]) -> list[str]:
    """The run's settings and every rank's device, as nccl-tests prints them before the table."""
    cfg, env = doc["config"], doc["environment"] or {}
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


def render_plain(doc: dict[str, Any]) -> str:
    """nccl-tests' text layout: '#' header lines, fixed-width columns, the footer."""
    widths = [w for *_, w in FIXED]
    out = [f"# {line}" for line in header_lines(doc)]
    for series in tables(doc):
        cols = widths + [w for _ in series for *_, w in GROUP] + ([RATIO[2]] if len(series) > 1 else [])

        def line(values: list[str], cols: list[int] = cols) -> str:
            return "  ".join(v.rjust(w) for v, w in zip(values, cols, strict=True))

        group_width = sum(w + 2 for *_, w in GROUP)
        titles = "".join(f"{s['placement']}: {s['label']}"[:group_width - 1].center(group_width)
                         for s in series)
        out += ["#", "#" + " " * (sum(w + 2 for w in widths) - 1) + titles]
        names = [n for n, *_ in FIXED] + [n for _ in series for n, *_ in GROUP]
        units = [u for _, u, _ in FIXED] + [u for _ in series for _, u, _ in GROUP]
        if len(series) > 1:
            names, units = names + [RATIO[0]], units + [RATIO[1]]
        out += ["#" + line(names)[1:], "#" + line(units)[1:]]
        out += [line(row) for row in cells(series, _ratios(doc))]
        out += [f"# {text}" for text in _footer(doc, series)]
    return "\n".join(out) + "\n"


def render_rich(doc: dict[str, Any], console: Console) -> None:
    """The same cells as a rich table per series group, with the footer below."""
    for text in header_lines(doc):
        console.print(text, style="dim", markup=False, highlight=False)
    for series in tables(doc):
        table = Table(title=" vs ".join(_title(s) for s in series), title_justify="left")
        for name, unit, _ in FIXED:
            table.add_column(f"{name}\n{unit}", justify="right")
        for s in series:
            style = "cyan" if s["kind"] == "built-in" else "magenta"
            for position, (name, unit, _) in enumerate(GROUP):
                top = s["label"] if position == 0 else ""
                table.add_column(f"{top}\n{name} {unit}".rstrip(), justify="right", style=style,
                                 header_style=f"bold {style}")
        if len(series) > 1:
            table.add_column(f"{RATIO[0]}\n{RATIO[1]}", justify="right", style="bold")
        for row in cells(series, _ratios(doc)):
            table.add_row(*row)
        console.print(table)
        for text in _footer(doc, series):
            console.print(text, markup=False, highlight=False)
