"""Who waits on whom in a deadlock, in words, read from the switch's trace (exact, not guessed)."""

from __future__ import annotations

from ..primitives import DISPLAY, P2P_OPS
from ..protocol import RankReport
from .trace import Request, SwitchTrace, WaitEdge


def _at(req: Request) -> tuple[str, str]:
    line = req["line"]
    return (f" (line {line})", f"（第 {line} 行）") if line else ("", "")


def _state(peer: int, ranks: list[RankReport], waiting: dict[int, Request]) -> tuple[str, str]:
    if peer in waiting:
        req = waiting[peer]
        en, zh = _at(req)
        return (f"is itself blocked in {req['api']}{en}", f"自己也阻塞在 {req['api']}{zh}")
    state = ranks[peer]["state"] if peer < len(ranks) else "returned"
    if state == "failed":
        return "has failed", "已出错"
    return "has returned", "已经返回"


def _cycle(edges: list[WaitEdge]) -> list[int]:
    """A cycle of the wait-for graph (ranks in order, the first repeated at the end), if any."""
    after: dict[int, list[int]] = {}
    for e in edges:
        after.setdefault(e["rank"], []).append(e["on"])
    for start in sorted(after):
        path, seen = [start], {start}
        while path[-1] in after:
            nxt = after[path[-1]][0]
            if nxt in seen:
                return path[path.index(nxt):] + [nxt]
            path.append(nxt)
            seen.add(nxt)
    return []


def explain_deadlock(trace: SwitchTrace, ranks: list[RankReport]) -> list[tuple[str, str]]:
    """(English, Chinese) lines: the cycle first when there is one, then one line per blocked rank."""
    requests = {r["id"]: r for r in trace["requests"]}
    edges = trace["deadlock"]
    waiting = {e["rank"]: requests[e["request"]] for e in edges}
    lines: list[tuple[str, str]] = []
    cycle = _cycle(edges)
    if cycle:
        arrows = " → ".join(map(str, cycle))
        lines.append((f"cycle {arrows} (each rank waits on the next)",
                      f"循环等待 {arrows}（每个 rank 都在等下一个）"))
    for rank, req in sorted(waiting.items()):
        on = [e["on"] for e in edges if e["rank"] == rank]
        at, at_zh = _at(req)
        kind = req["kind"]
        if kind == "recv":
            src = f"rank {on[0]}" if req["peer"] is not None else "any rank"
            en, zh = _state(on[0], ranks, waiting) if len(on) == 1 else ("", "")
            lines.append((f"rank {rank} waits in {req['api']} from {src}{at}"
                          + (f"; rank {on[0]} {en}" if en else ""),
                          f"rank {rank} 在 {req['api']} 中等待来自 {src} 的数据{at_zh}"
                          + (f"；rank {on[0]} {zh}" if zh else "")))
        elif kind in P2P_OPS:
            en, zh = _state(on[0], ranks, waiting)
            lines.append((f"rank {rank} waits in {req['api']} to rank {on[0]}{at}, which never "
                          f"receives it; rank {on[0]} {en}",
                          f"rank {rank} 在 {req['api']} 中等待 rank {on[0]} 接收{at_zh}；"
                          f"rank {on[0]} {zh}"))
        elif any(p in waiting and waiting[p]["kind"] not in P2P_OPS for p in on):
            other = waiting[next(p for p in on if p in waiting)]
            o_at, o_at_zh = _at(other)
            lines.append((f"rank {rank} waits in {req['api']}{at} while rank {other['rank']} waits "
                          f"in {other['api']}{o_at}: every rank must make the same collective "
                          "calls, with the same root and op, in the same order",
                          f"rank {rank} 在 {req['api']}{at_zh} 中等待，而 rank {other['rank']} 在 "
                          f"{other['api']}{o_at_zh} 中等待：所有 rank 必须以相同顺序进行相同的集合通信"
                          "（root 和归约操作也要相同）"))
        else:
            names = ", ".join(f"rank {p}" for p in on)
            them = "它没有进行这次调用" if len(on) == 1 else "它们没有进行这次调用"
            lines.append((f"rank {rank} waits in {DISPLAY.get(kind, kind)} ({req['api']}){at} for "
                          f"{names}, which never made that call",
                          f"rank {rank} 在 {DISPLAY.get(kind, kind)}（{req['api']}）{at_zh} 中等待 "
                          f"{names}，{them}"))
    return lines
