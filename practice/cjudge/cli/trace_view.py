"""``judge.py test … --trace`` and ``--svg FILE``: a case's ``timeline`` on a terminal and as SVG.

The table is rank × step: what each rank sent at each step (``→1 16B``), the collectives it
joined, and, after the last step, whom it waits on in a deadlock. The SVG is the same diagram:
one lane per rank, an arrow per message labelled with its bytes, collectives as bands, waits
shaded, the deadlock's wait-for edges in red (dashed too), the critical path in orange (thick)
and a wrong answer's first wrong element marked. Colours are Okabe–Ito's (readable with colour
blindness) and never the only cue; every arrow carries its details as a ``<title>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..contract.units import format_seconds, format_size
from ..contract.verdict_json import CaseResult, VerdictJSON, dumps
from ..view.perfetto import chrome_trace
from ..view.schema import TimelineJSON

#: at most this many steps are tabulated (the SVG draws them all)
MAX_COLUMNS = 48
BLUE, ORANGE, VERMILLION, SKY, GREY = "#0072B2", "#E69F00", "#D55E00", "#56B4E9", "#999999"
#: the SVG's margins (left, top), a rank's lane height and a step's column width, in pixels
LEFT, TOP, LANE, COL = 64, 44, 48, 84


def pick_case(result: VerdictJSON, name: str | None = None) -> CaseResult | None:
    """The case to draw: ``name``, else the first that failed, else the one with most ranks."""
    cases = [c for c in result.get("cases", []) if isinstance(c.get("timeline"), dict)]
    if name is not None:
        return next((c for c in cases if c["name"] == name), None)
    failing = [c for c in cases if c["verdict"] != "accepted"]
    if failing:
        return failing[0]
    return max(cases, key=lambda c: c["world_size"], default=None)


def _bytes(n: int) -> str:
    return format_size(n).replace(" ", "")


def cells(view: TimelineJSON) -> tuple[list[str], list[list[str]]]:
    """(header, one row per rank) of the rank × step table, as plain text."""
    steps = min(view["steps"], MAX_COLUMNS)
    world = view["world_size"]
    grid: list[list[list[str]]] = [[[] for _ in range(steps)] for _ in range(world)]
    for m in view["messages"]:
        if 1 <= m["step"] <= steps:
            chunk = f" c{m['chunk']}" if "chunk" in m else ""
            grid[m["src"]][m["step"] - 1].append(f"→{m['dst']} {_bytes(m['bytes'])}{chunk}")
    for c in view["collectives"]:
        if 1 <= c["step"] <= steps:
            for i, r in enumerate(c["ranks"]):
                grid[r][c["step"] - 1].append(f"{c['kind']} {_bytes(c['bytes'][i])}")
    for p in view["pending"]:
        if 1 <= p["step"] <= steps and p["kind"] == "send":
            grid[p["rank"]][p["step"] - 1].append(f"→{p['peer']} {_bytes(p['bytes'])} (never received)")
    header = ["rank", *(f"step {s}" for s in range(1, steps + 1))]
    waits = {e["rank"]: e for e in view["deadlock"]}
    if waits:
        header.append("deadlock")
    rows = []
    for r in range(world):
        row = [str(r), *(", ".join(cell) or "·" for cell in grid[r])]
        if waits:
            e = waits.get(r)
            row.append(f"waits on {e['on']} in {e['kind']}"
                       + (f" (line {e['line']})" if e["line"] else "") if e else "")
        rows.append(row)
    return header, rows


def notes(view: TimelineJSON, lang: str = "en") -> list[str]:
    """The lines under the table: the model, the critical path, the wrong chunk, a cut."""
    zh = lang == "zh"
    out = []
    if (end_t := view.get("end_t")) is not None:
        t = format_seconds(end_t / 1e9)
        out.append(f"建模时间 {t}（{view['topology']}，S = {format_size(view['size'])}）" if zh else
                   f"modelled time {t} on {view['topology']} at S = {format_size(view['size'])}")
    if view["critical"] and view.get("too_slow"):
        ids = {c["id"] for c in view["critical"] if c["kind"] == "message"}
        hops = " ".join(f"{m['src']}→{m['dst']}" for m in view["messages"] if m["id"] in ids)
        out.append(f"关键路径（{len(view['critical'])} 步）：{hops}" if zh else
                   f"critical path ({len(view['critical'])} transfers): {hops}")
    wrong = view.get("wrong")
    if wrong:
        chunk = f", chunk {wrong['chunk']}" if wrong.get("chunk") is not None else ""
        out.append(f"rank {wrong['rank']} 第一个错误元素：下标 {wrong['index']}{chunk}" if zh else
                   f"first wrong element: rank {wrong['rank']}, index {wrong['index']}{chunk}")
    if view["steps"] > MAX_COLUMNS:
        out.append(f"（只显示前 {MAX_COLUMNS} 步，共 {view['steps']} 步）" if zh else
                   f"(first {MAX_COLUMNS} of {view['steps']} steps shown)")
    if isinstance(cut := view.get("cut"), dict) and cut:
        what = ", ".join(f"{k}: {v}" for k, v in cut.items())
        out.append(f"（数据已截断；原有 {what}）" if zh else f"(cut: the run had {what})")
    return out


def print_trace(console: Console, case: CaseResult, lang: str = "en") -> None:
    """The case's rank × step table: rich on a terminal, plain aligned text when piped."""
    view = case["timeline"]
    title = f"{case['name']}: {case['verdict']}"
    if "error" in view:
        console.print(f"{title}: no trace view ({view['error']})", markup=False)
        return
    header, rows = cells(view)
    if console.is_terminal:
        table = Table(title=title)
        for col in header:
            table.add_column(col, style="red" if col == "deadlock" else None, overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    else:
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        console.print(title, markup=False, highlight=False)
        for row in [header, *rows]:
            console.print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                          .rstrip(), markup=False, highlight=False)
    for line in notes(view, lang):
        console.print(line, markup=False, highlight=False)


@dataclass(frozen=True)
class _Canvas:
    """The SVG's size and where things go on it: a lane per rank (y), a column per step (x)."""

    world: int
    steps: int
    width: int
    height: int

    @classmethod
    def of(cls, view: TimelineJSON) -> _Canvas:
        """The canvas for ``view``: room on the right for a deadlock's edges and a wrong mark."""
        world, steps = view["world_size"], max(view["steps"], 1)
        room = (260 if view["deadlock"] else 0) + (170 if view.get("wrong") else 0)
        return cls(world, steps, max(LEFT + COL * (steps + 1) + room, 480), TOP + LANE * world + 36)

    def x(self, s: float) -> float:
        """The x of the end of step ``s``."""
        return LEFT + COL * s

    def y(self, r: float) -> float:
        """The y of rank ``r``'s lane."""
        return TOP + LANE * r + LANE / 2


def _svg_head(c: _Canvas, title: str) -> list[str]:
    """The opening tag, the title and description, the arrowheads and the white background."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{c.width}" height="{c.height}" '
            f'viewBox="0 0 {c.width} {c.height}" font-family="sans-serif" font-size="11" role="img">',
            f"<title>{escape(title or 'trace')}</title>",
            "<desc>One lane per rank, time (steps) left to right; each arrow is a message from "
            "its sender to its receiver, labelled with its size.</desc>",
            "<defs>" + "".join(
                f'<marker id="head-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                f'fill="{colour}"/></marker>'
                for name, colour in (("msg", BLUE), ("crit", ORANGE), ("dead", VERMILLION)))
            + "</defs>",
            f'<rect width="{c.width}" height="{c.height}" fill="white"/>',
            f'<text x="{LEFT}" y="18" font-size="13" font-weight="bold">{escape(title)}</text>']


def _svg_axes(c: _Canvas) -> list[str]:
    """A grid line and number per step, a lane and label per rank."""
    out = []
    for s in range(c.steps + 1):
        out.append(f'<line x1="{c.x(s)}" y1="{TOP - 6}" x2="{c.x(s)}" y2="{TOP + LANE * c.world}" '
                   'stroke="#eee"/>')
        if s:
            out.append(f'<text x="{c.x(s) - COL / 2}" y="{TOP - 10}" text-anchor="middle" '
                       f'fill="#555">{s}</text>')
    for r in range(c.world):
        out.append(f'<line x1="{LEFT}" y1="{c.y(r)}" x2="{c.x(c.steps)}" y2="{c.y(r)}" stroke="#333"/>')
        out.append(f'<text x="8" y="{c.y(r) + 4}">rank {r}</text>')
    return out


def _svg_waits(view: TimelineJSON, c: _Canvas) -> list[str]:
    """A grey band over each rank's wait (to the end when it never ends)."""
    out = []
    for w in view["waits"]:
        s1 = w["s1"] if w["s1"] is not None else c.steps
        if s1 > w["s0"]:
            out.append(f'<rect x="{c.x(w["s0"])}" y="{c.y(w["rank"]) - 7}" width="{COL * (s1 - w["s0"])}" '
                       f'height="14" fill="{GREY}" opacity="0.18"><title>rank {w["rank"]} waits '
                       f'(line {w["line"]})</title></rect>')
    return out


def _svg_collectives(view: TimelineJSON, c: _Canvas) -> list[str]:
    """A band over each collective's ranks at its step, named above it."""
    out = []
    for k in view["collectives"]:
        rows = [c.y(r) for r in k["ranks"]]
        out.append(f'<rect x="{c.x(k["step"] - 1) + 6}" y="{min(rows) - 16}" width="{COL - 12}" '
                   f'height="{max(rows) - min(rows) + 32}" rx="6" fill="{SKY}" opacity="0.35" '
                   f'stroke="{BLUE}"><title>{escape(k["kind"])} over ranks '
                   f'{", ".join(map(str, k["ranks"]))} (line {k["line"]})</title></rect>')
        out.append(f'<text x="{c.x(k["step"]) - COL / 2}" y="{min(rows) - 19}" text-anchor="middle">'
                   f'{escape(k["kind"])}</text>')
    return out


def _svg_messages(view: TimelineJSON, c: _Canvas) -> list[str]:
    """An arrow per message, labelled with its bytes: orange on a too-slow run's critical path,
    vermillion for the last receive before a wrong element, its details as its title."""
    critical = {k["id"] for k in view["critical"] if k["kind"] == "message"}
    wrong = view.get("wrong")
    last_recv = wrong.get("last_recv") if wrong else None
    out = []
    for m in view["messages"]:
        x1, x2 = c.x(m["step"] - 1) + 8, c.x(m["step"]) - 8
        y1, y2 = c.y(m["src"]), c.y(m["dst"])
        crit = m["id"] in critical and view.get("too_slow")
        last = m["id"] == last_recv
        colour, head = (ORANGE, "crit") if crit else (VERMILLION, "dead") if last else (BLUE, "msg")
        t0, t1 = m["t0"], m["t1"]  # modelled together
        times = f", modelled {t0 / 1e3:.3g}–{t1 / 1e3:.3g} µs" if t0 is not None and t1 is not None \
            else ""
        tip = (f"rank {m['src']} → rank {m['dst']}: {m['bytes']} B, tag {m['tag']}, sent at line "
               f"{m['line']}, received at line {m['recv_line']}, step {m['step']}{times}")
        out.append(f'<g class="msg"><title>{escape(tip)}</title><line x1="{x1}" y1="{y1}" '
                   f'x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{3 if crit else 1.5}" '
                   f'marker-end="url(#head-{head})"/>'
                   f'<text x="{(x1 + x2) / 2}" y="{(y1 + y2) / 2 - 4}" text-anchor="middle" '
                   f'fill="#333">{_bytes(m["bytes"])}</text></g>')
    return out


def _svg_wrong(view: TimelineJSON, c: _Canvas) -> list[str]:
    """A wrong answer's mark after the last step, on the rank with the first wrong element."""
    wrong = view.get("wrong")
    if not wrong:
        return []
    chunk = f", chunk {wrong['chunk']}" if wrong.get("chunk") is not None else ""
    yy = c.y(wrong["rank"])
    return [f'<g class="wrong"><circle cx="{c.x(c.steps) + 10}" cy="{yy}" r="6" fill="none" '
            f'stroke="{VERMILLION}" stroke-width="2"/><text x="{c.x(c.steps) + 20}" '
            f'y="{yy + 4}" fill="{VERMILLION}">✗ index {wrong["index"]}{chunk}</text></g>']


def _svg_deadlock(view: TimelineJSON, c: _Canvas) -> list[str]:
    """A dashed vermillion edge from each deadlocked rank to the rank it waits on."""
    base = c.x(c.steps) + 16
    out = []
    for i, e in enumerate(view["deadlock"]):
        y1, y2 = c.y(e["rank"]), c.y(e["on"])
        bend = base + 30 + 14 * i + 8 * abs(e["rank"] - e["on"])
        what = f"waits on rank {e['on']} in {e['kind']}" + (f" (line {e['line']})" if e["line"] else "")
        out.append(f'<g class="deadlock"><title>rank {e["rank"]} {escape(what)}</title>'
                   f'<path d="M{base},{y1} C{bend},{y1} {bend},{y2} {base + 4},{y2 - 3}" '
                   f'fill="none" stroke="{VERMILLION}" stroke-width="2" stroke-dasharray="5 3" '
                   f'marker-end="url(#head-dead)"/><text x="{base + 90}" y="{y1 + 4}" '
                   f'fill="{VERMILLION}">{escape(what)}</text></g>')
    return out


def _svg_legend(view: TimelineJSON, c: _Canvas) -> list[str]:
    """The legend along the bottom: only the colours the drawing uses."""
    legend = [(BLUE, "message (size)"), (GREY, "waiting")]
    if view["critical"] and view.get("too_slow"):
        legend.append((ORANGE, "critical path"))
    if view["deadlock"]:
        legend.append((VERMILLION, "waits on (deadlock)"))
    return [f'<rect x="{LEFT + 150 * i}" y="{c.height - 22}" width="14" height="8" fill="{colour}"/>'
            f'<text x="{LEFT + 150 * i + 20}" y="{c.height - 14}">{text}</text>'
            for i, (colour, text) in enumerate(legend)]


def svg(view: TimelineJSON, title: str = "") -> str:
    """The timeline as a standalone SVG (x: step; each arrow's modelled times in its title)."""
    c = _Canvas.of(view)
    out = [*_svg_head(c, title), *_svg_axes(c), *_svg_waits(view, c), *_svg_collectives(view, c),
           *_svg_messages(view, c), *_svg_wrong(view, c), *_svg_deadlock(view, c),
           *_svg_legend(view, c), "</svg>"]
    return "\n".join(out) + "\n"


def show_trace(console: Console, result: VerdictJSON, table: bool, svg_file: Path | None,
               lang: str = "en", perfetto_file: Path | None = None) -> None:
    """``--trace``, ``--svg`` and ``--perfetto``: the picked case's table, SVG and/or Chrome
    trace-event JSON (for ui.perfetto.dev)."""
    case = pick_case(result)
    if case is None:
        console.print("no case to draw" if lang != "zh" else "没有可绘制的用例", markup=False)
        return
    if table:
        print_trace(console, case, lang)
    if "error" in case["timeline"]:
        return
    title = f"{result['exercise']} · {case['name']}: {case['verdict']}"
    if svg_file is not None:
        svg_file.write_text(svg(case["timeline"], title), encoding="utf-8")
        console.print(f"wrote {svg_file}", markup=False)
    if perfetto_file is not None:
        perfetto_file.write_text(dumps(chrome_trace(case, title)), encoding="utf-8")
        console.print(f"wrote {perfetto_file} (open it in ui.perfetto.dev · 用 ui.perfetto.dev "
                      "打开)", markup=False)
