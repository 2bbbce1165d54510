"""Where a budget was passed, for the graders' messages: the rank, the call (its name and how
many of that name the rank had made) and its line. ``memory`` hooks count what a rank holds
call by call (:func:`peak`); ``check_traffic`` hooks compare a rank's calls with the ones the
algorithm makes (:func:`first_other`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


class FreedDead(Exception):  # noqa: N818 - the learner's error, as the runtime reports it
    """A call frees more than its rank holds (a ``runtime_error``); ``en``, ``zh`` name it."""

    def __init__(self, en: str, zh: str) -> None:
        super().__init__(en)
        self.en, self.zh = en, zh


def peak(changes: dict[int, list[Change]], unit: int = 1) -> Peak:
    """The highest of every rank's running total (changes in the order given), in units of
    ``unit`` rounded up; the first rank and call to reach it. A total never goes below zero: a
    call that would take it there frees what is not alive (:class:`FreedDead`, naming it), for a
    debt would hide a later peak."""
    best = Peak()
    for rank, items in changes.items():
        held = 0
        made: dict[str, int] = {}
        for amount, call, line in items:
            held += amount
            made[call] = made.get(call, 0) + 1
            if held < 0:
                en, zh = call_at(call, made[call], line, rank)
                raise FreedDead(
                    f"{en} frees memory that is not alive: it uses what no earlier call of this "
                    "rank made alive, so the judge's count of what the rank holds would go below "
                    "zero",
                    f"{zh.strip()}释放了并不存在的内存：它用到的东西不是本 rank 之前的调用产生的，评测机对该 "
                    "rank 所持内存的计数会变成负数")
            if -(-held // unit) > best.held:
                best = Peak(-(-held // unit), rank, call, made[call], line)
    return best


def first_other(calls: Sequence[Mapping[str, object]], want: list[int]) -> int:
    """The index of the first of a rank's calls (``protocol.TraceEvent`` s, or a grader's plain
    dicts of them) whose element count is not ``want``'s at the same place: the first extra
    call's, or ``len(calls)`` when calls are missing."""
    for i, (call, count) in enumerate(zip(calls, want, strict=False)):
        if call["count"] != count:
            return i
    return min(len(want), len(calls))
