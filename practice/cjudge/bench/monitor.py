"""Watching the ranks through the side channel: their steps, rows, errors and the hang timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .channel import Channel, RankFailure
from .config import PHASES, Step
from .environment import Environment
from .measure import StepRow

POLL_S = 0.1


class Display(Protocol):
    """Where the status line goes (a rich bar, or plain lines)."""

    def update(self, done: int, current: str) -> None:
        """``done`` steps finished by every rank; the slowest rank is in ``current``."""

    def row(self, row: StepRow) -> None:
        """A step's numbers arrived."""

    def close(self) -> None:
        """The run is over."""


@dataclass
class Outcome:
    """How the run ended, and what arrived before."""

    status: str  # "ok", "timeout" or "failed"
    env: Environment | None
    rows: list[StepRow]
    message: str = ""
    unfinished: list[int] = field(default_factory=list)  # ranks behind at a timeout/failure
    where: list[str] = field(default_factory=list)  # what each rank was doing then


def where(done: int, steps: list[Step]) -> str:
    """What a rank that finished ``done`` phases is doing."""
    if done >= len(steps) * len(PHASES):
        return "the end of the run"
    return f"the {PHASES[done % len(PHASES)]} of {steps[done // len(PHASES)].label}"


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def describe_hang(phases: list[int], steps: list[Step], timeout_s: float) -> str:
    """Who did not finish what: the ranks behind, and where the others wait."""
    low = min(phases)
    behind = [r for r, p in enumerate(phases) if p == low]
    parts = [f"no progress for {timeout_s:g} s: {_ranks(behind)} did not finish "
             f"{where(low, steps)}"]
    for done in sorted(set(phases) - {low}):
        ahead = [r for r, p in enumerate(phases) if p == done]
        parts.append(f"{_ranks(ahead)} finished it and {'is' if len(ahead) == 1 else 'are'} "
                     f"in {where(done, steps)}")
    return "; ".join(parts)


def describe_failure(errors: list[RankFailure], dead: dict[int, int]) -> str:
    """The first error in full (the others usually follow from it), then one line per other."""
    lines = []
    for index, error in enumerate(errors):
        text = error["error"].rstrip()
        lines.append(f"rank {error['rank']} failed:\n{text}" if index == 0 else
                     f"rank {error['rank']} then failed too: {text.splitlines()[-1]}")
    for rank, code in sorted(dead.items()):
        lines.append(f"rank {rank} was killed by signal {-code}" if code < 0 else
                     f"rank {rank} exited with status {code} without reporting an error")
    return "\n".join(lines)


def watch(channel: Channel, steps: list[Step], world: int, timeout_s: float, display: Display,
          exitcodes: Callable[[], dict[int, int | None]] | None = None) -> Outcome:
    """Poll until every rank finished every phase, one failed, or none progressed for ``timeout_s``.

    ``exitcodes`` (when the ranks are our own processes) also catches a rank that died silently.
    """
    total = len(steps) * len(PHASES)
    rows: list[StepRow] = []
    last: list[int] = []
    since = time.monotonic()
    while True:
        phases = channel.phases(world)
        while (row := channel.get(f"row/{len(rows)}")) is not None:
            rows.append(row)
            display.row(row)
        states = [where(p, steps) for p in phases]
        behind = [r for r, p in enumerate(phases) if p < total]
        errors = channel.errors()
        reported = {e["rank"] for e in errors}
        dead = {r: c for r, c in (exitcodes() if exitcodes else {}).items()
                if c and r not in reported}
        if errors or dead:
            return Outcome("failed", channel.get("env"), rows, describe_failure(errors, dead),
                           behind, states)
        if not behind:
            return Outcome("ok", channel.get("env"), rows, where=states)
        if phases != last:
            last, since = phases, time.monotonic()
            display.update(min(phases) // len(PHASES), where(min(phases), steps))
        elif timeout_s and time.monotonic() - since > timeout_s:
            low = min(phases)
            return Outcome("timeout", channel.get("env"), rows,
                           describe_hang(phases, steps, timeout_s),
                           [r for r, p in enumerate(phases) if p == low], states)
        time.sleep(POLL_S)
