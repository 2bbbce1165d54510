"""The table of ``judge.py model``: a column per algorithm where that fits the width, else a
block of rows per size (an algorithm a row), so no value is ever split over lines."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..contract.units import format_seconds, format_size
from ..model.schema import SizeRow

if TYPE_CHECKING:  # model imports this module
    from .model import SweepDoc

#: a column per algorithm, headers whole; the same, headers wrapped to the values' width; a
#: row per size and algorithm
LAYOUTS = ("wide", "compact", "tall")
#: the note under each layout on what its last column means
RATIO_NOTE = {False: "ratio: {first}'s time over the fastest's.",
              True: "× fastest: each algorithm's time over the fastest's at that size."}


def fit_width(console: Console) -> int | None:
    """The width the output must fit: the terminal's, or ``COLUMNS`` when piped; None (any
    width) when piped without ``COLUMNS``."""
    return console.width if console.is_terminal or os.environ.get("COLUMNS", "").isdigit() \
        else None


def wide_cells(doc: SweepDoc) -> tuple[list[str], list[list[str]]]:
    """The header and body with a column per algorithm: per size, each one's time and busbw,
    the fastest, and the first one's time over the fastest's."""
    head = ["size"]
    for s in doc["series"]:
        steps = {r["steps"] for r in s["rows"]}
        count = steps.pop() if len(steps) == 1 else None
        label = s["label"] + ("" if count is None else f" ({count} step{'s' * (count != 1)})")
        head += [f"{label}: time", "busbw GB/s"]
    head += ["fastest", "ratio"]
    body = []
    for i, size in enumerate(doc["sizes"]):
        rows = [s["rows"][i] for s in doc["series"]]
        line = [format_size(size)]
        for r in rows:
            line += [format_seconds(r["time_s"]), f"{r['busbw']:.1f}"]
        best = _fastest(rows)
        ratio = rows[0]["time_s"] / rows[best]["time_s"] if rows[best]["time_s"] else 1.0
        body.append(line + [doc["series"][best]["label"], f"{ratio:.2f}x"])
    return head, body


def tall_cells(doc: SweepDoc) -> tuple[list[str], list[list[str]]]:
    """The header and body with a row per size and algorithm: its steps, time, busbw and time
    over the fastest's; the size only on each block's first row."""
    head = ["size", "algorithm", "steps", "time", "busbw GB/s", "× fastest"]
    body = []
    for i, size in enumerate(doc["sizes"]):
        rows = [s["rows"][i] for s in doc["series"]]
        fastest = _fastest(rows)
        best = rows[fastest]["time_s"]
        for k, (s, r) in enumerate(zip(doc["series"], rows, strict=True)):
            body.append([format_size(size) if k == 0 else "", s["label"], str(r["steps"]),
                         format_seconds(r["time_s"]), f"{r['busbw']:.1f}",
                         "fastest" if k == fastest else
                         f"{r['time_s'] / best if best else 1.0:.2f}x"])
    return head, body


def _fastest(rows: list[SizeRow]) -> int:
    """The index of the fastest row (the first of equals, to the model's precision)."""
    return min(range(len(rows)), key=lambda k: (round(rows[k]["time_s"], 15), k))


def table(doc: SweepDoc, heading: str, layout: str, plain: bool) -> Table:
    """The sweep as a rich table in a :data:`LAYOUTS` layout, ``plain`` without a box (for a
    pipe). Only headers and algorithm names ever wrap, never a value."""
    tall = layout == "tall"
    head, body = (tall_cells if tall else wide_cells)(doc)
    grid = Table(title=heading, box=None if plain else box.HEAVY_HEAD)
    names = 1 if tall else len(head) - 2
    for k, name in enumerate(head):
        longest = max(cell_len(x) for x in [*name.split(), *(line[k] for line in body)])
        grid.add_column(name, justify="left" if k == names else "right", overflow="fold",
                        no_wrap=tall and k != names, width=longest if layout == "compact" else None)
    per_size = len(doc["series"])
    for n, line in enumerate(body):
        grid.add_row(*map(Text, line), end_section=tall and (n + 1) % per_size == 0)
    return grid


def show(doc: SweepDoc, heading: str, console: Console) -> bool:
    """Print the sweep's table in the first of :data:`LAYOUTS` that fits the width; whether
    that was the tall one."""
    width, plain = fit_width(console), not console.is_terminal
    for layout in LAYOUTS:
        grid = table(doc, heading, layout, plain)
        need = Measurement.get(console, console.options.update_width(10**6), grid).maximum
        if width is None or need <= width or layout == "tall":
            break
    if plain:  # drawn at the width, then printed as lines without their padding
        out = Console(width=width or need, color_system=None)
        with out.capture() as drawn:
            out.print(grid, soft_wrap=False)
        console.print("\n".join(line.rstrip() for line in drawn.get().splitlines()),
                      markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(grid, soft_wrap=False)
    return layout == "tall"
