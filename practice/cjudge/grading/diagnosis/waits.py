"""Requests never waited: an ``irecv`` or an ``async_op=True`` collective whose work nobody
waited on, so its buffer was read before (or without) the data being written into it; and a
wait that came after the buffer was read (a receive's buffer sent on before its wait)."""

from __future__ import annotations

from ...contract.primitives import call_name
from ...switch.trace import SwitchTrace, recorded_values
from .sends import Send
from .values import shown_list


def never_waited(trace: SwitchTrace) -> tuple[str, str] | None:
    """The first graded request that delivers data (a receive or a collective) and that its
    rank never waited on, named with its line; None if every such request was waited on. The
    first of the lowest rank that missed one, in its own order: the same on every run (ranks'
    posts interleave as they happen to be scheduled), and the rank a wrong result is first
    looked for in."""
    waited = {w["request"] for w in trace["waits"]}
    missed = [r for r in trace["requests"]
              if r["graded"] and r["kind"] != "send" and r["id"] not in waited]
    if not missed:
        return None
    first = min(missed, key=lambda r: (r["rank"], r["posted"]))
    call = call_name(first["api"], first["kind"])
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


def read_before_wait(trace: SwitchTrace, send: Send, want: Send | None) -> tuple[str, str] | None:
    """The receive whose buffer ``send`` (the learner's first departing send) read before
    waiting on it: a receive of the same rank, posted before the send and waited on only after
    it, that delivered exactly what the reference's send at that place carries. None if none."""
    if want is None or want.values is None or send.values is None:
        return None
    begun = {w["request"]: w["begin"] for w in trace["waits"]}
    delivered = {m["recv"]: recorded_values(m.get("data")) for m in trace["messages"]}
    for req in sorted(trace["requests"], key=lambda r: r["posted"]):
        if req["rank"] != send.rank or req["kind"] != "recv" or not req["graded"] or \
                req["posted"] >= send.posted or begun.get(req["id"], send.posted + 1) < send.posted:
            continue
        got = delivered.get(req["id"])
        if got is None or tuple(got) != want.values:
            continue
        call = call_name(req["api"], req["kind"])
        at, at_zh = (f" (line {req['line']})", f"（第 {req['line']} 行）") if req["line"] else ("", "")
        by, by_zh = (f" (line {send.line})", f"（第 {send.line} 行）") if send.line else ("", "")
        return (f"rank {send.rank}'s send{by} reads the buffer of its {call}{at} before waiting "
                f"on that request: it sent {shown_list(send.values)}, what the buffer held before "
                f"the data arrived, instead of {shown_list(want.values)}, which the {call} "
                "delivered later (wait on a request before reading its buffer)",
                f"rank {send.rank} 的发送{by_zh}在等待 {call}{at_zh} 之前就读取了它的缓冲区：发出的是 "
                f"{shown_list(send.values)}，即数据到达之前缓冲区里的值，而不是该 {call} 稍后收到的 "
                f"{shown_list(want.values)}（读取缓冲区之前先等待该请求）")
    return None
