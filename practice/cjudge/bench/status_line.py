"""The status line while the ranks run: a rich bar on a terminal, plain lines otherwise."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..contract.units import format_size
from .measure import StepRow
from .monitor import Display
from .report import derive
from .table import format_time


class RichDisplay:
    """A transient bar over the steps, naming what the slowest rank is doing."""

    def __init__(self, total: int, console: Console):
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                            transient=True, refresh_per_second=4)
        self.task = self.bar.add_task("starting the ranks", total=total)
        self.bar.start()

    def update(self, done: int, current: str) -> None:
        self.bar.update(self.task, completed=done, description=current)

    def row(self, row: StepRow) -> None:
        """The table comes at the end; the bar moves with :meth:`update`."""

    def close(self) -> None:
        self.bar.stop()


class PlainDisplay:
    """One line per finished step, for logs."""

    def __init__(self, total: int, console: Console, aggregate: str):
        self.total, self.console, self.aggregate, self.done = total, console, aggregate, 0

    def update(self, done: int, current: str) -> None:
        """Lines are printed per row instead."""

    def row(self, row: StepRow) -> None:
        self.done += 1
        r = derive(row, self.aggregate)
        wrong = "N/A" if r["wrong"] is None else r["wrong"]
        self.console.print(f"[{self.done:{len(str(self.total))}d}/{self.total}] {r['series']} "
                           f"{format_size(r['size'])}: {format_time(r['time_us'])} us "
                           f"(median {format_time(r['median_us'])}), "
                           f"busbw {r['busbw']:.3f} GB/s, #wrong {wrong}",
                           markup=False, highlight=False, soft_wrap=True)

    def close(self) -> None:
        """Nothing to tidy."""


def make_display(total: int, console: Console, aggregate: str) -> Display:
    """A bar if ``console`` is a terminal, else plain lines."""
    if console.is_terminal:
        return RichDisplay(total, console)
    return PlainDisplay(total, console, aggregate)
