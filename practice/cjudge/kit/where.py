"""Where a budget was passed, for the graders' messages: the rank, the call (its name and how
many of that name the rank had made) and its line. ``memory`` hooks count what a rank holds
call by call (:func:`peak`); ``check_traffic`` hooks compare a rank's calls with the ones the
algorithm makes (:func:`first_other`)."""

from __future__ import annotations

from dataclasses import dataclass

#: one change to what a rank holds: (amount, the call that made it, the call's line)
Change = tuple[int, str, int | None]


def call_at(name: str, count: int, line: int | None, rank: int | None = None) -> tuple[str, str]:
    """'its fwd call 5 (line 23)' (``rank``: 'rank 0's fwd call 5 …') in English and Chinese."""
    at = "" if line is None else f" (line {line})"
    at_zh = "" if line is None else f"（第 {line} 行）"
    who, who_zh = ("its", "") if rank is None else (f"rank {rank}'s", f" rank {rank} ")
    return f"{who} {name} call {count}{at}", f"{who_zh}第 {count} 次调用 {name}{at_zh}"


@dataclass(frozen=True)
class Peak:
    """The most a rank held at once (in units, rounded up), and the call that reached it."""
    held: int = 0
    rank: int = 0
    call: str = ""
    count: int = 0  # the call was the rank's count-th call of that name
    line: int | None = None

    def at(self, named: bool = False) -> tuple[str, str]:
        """'at its fwd call 5 (line 23)' in English and Chinese; ``named``: 'at rank 0's …'."""
        en, zh = call_at(self.call, self.count, self.line, self.rank if named else None)
        return f"at {en}", f"在{zh}时"


def peak(changes: dict[int, list[Change]], unit: int = 1) -> Peak:
    """The highest of every rank's running total (changes in the order given), in units of
    ``unit`` rounded up; the first rank and call to reach it."""
    best = Peak()
    for rank, items in changes.items():
        held = 0
        made: dict[str, int] = {}
        for amount, call, line in items:
            held += amount
            made[call] = made.get(call, 0) + 1
            if -(-held // unit) > best.held:
                best = Peak(-(-held // unit), rank, call, made[call], line)
    return best


def first_other(calls: list[dict], want: list[int]) -> int:
    """The index of the first of a rank's calls whose element count is not ``want``'s at the
    same place: the first extra call's, or ``len(calls)`` when calls are missing."""
    for i, (call, count) in enumerate(zip(calls, want, strict=False)):
        if call["count"] != count:
            return i
    return min(len(want), len(calls))
