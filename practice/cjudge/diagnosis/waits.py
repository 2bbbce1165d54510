"""Requests never waited: an ``irecv`` or an ``async_op=True`` collective whose work nobody
waited on, so its buffer was read before (or without) the data being written into it."""

from __future__ import annotations

from ..primitives import DISPLAY
from ..switch.trace import SwitchTrace


def never_waited(trace: SwitchTrace) -> tuple[str, str] | None:
    """The first graded request that delivers data (a receive or a collective) and that its
    rank never waited on, named with its line; None if every such request was waited on."""
    waited = {w["request"] for w in trace["waits"]}
    missed = [r for r in trace["requests"]
              if r["graded"] and r["kind"] != "send" and r["id"] not in waited]
    if not missed:
        return None
    first = min(missed, key=lambda r: (r["posted"], r["rank"]))
    call = first["api"] or DISPLAY.get(first["kind"], first["kind"])
    at, at_zh = (f" (line {first['line']})", f"（第 {first['line']} 行）") if first["line"] \
        else ("", "")
    more = len(missed) - 1
    others = (f"; {more} more request{'s' if more > 1 else ''} likewise",
              f"；另有 {more} 个请求同样如此") if more else ("", "")
    return (f"rank {first['rank']}'s {call}{at} was never waited on: its buffer was used before "
            f"the data arrived in it (call .wait() on the request before reading the buffer)"
            f"{others[0]}",
            f"rank {first['rank']} 的 {call}{at_zh} 从未等待：在数据写入之前就使用了它的缓冲区"
            f"（读取缓冲区之前先对该请求调用 .wait()）{others[1]}")
