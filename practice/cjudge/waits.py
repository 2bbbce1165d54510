"""Who waits on whom: explaining a deadlock from the ranks' states and their traces."""

from __future__ import annotations

from collections import Counter

from .primitives import P2P_OPS
from .protocol import RankReport, TraceEvent


def _last_event(events: list[TraceEvent], rank: int) -> TraceEvent | None:
    mine = [e for e in events if e["rank"] == rank]
    return mine[-1] if mine else None


def _at(event: TraceEvent | None) -> tuple[str, str]:
    if event is None or not event.get("line"):
        return "", ""
    return f" (line {event['line']})", f"（第 {event['line']} 行）"


def _last_of(events: list[TraceEvent], rank: int, op: str, peer: int) -> TraceEvent | None:
    mine = [e for e in events if e["rank"] == rank and e["op"] == op and e["peer"] == peer]
    return mine[-1] if mine else None


def _state_of(ranks: list[RankReport], rank: int) -> tuple[str, str]:
    state = ranks[rank]["state"]
    if state == "returned":
        return "has returned", "已经返回"
    if state == "failed":
        return "has failed", "已出错"
    return "is itself blocked", "自己也在阻塞"


def explain_waits(ranks: list[RankReport], events: list[TraceEvent]) -> list[tuple[str, str]]:
    """One (English, Chinese) sentence per blocked rank saying what it waits for and on whom.

    Point-to-point traffic is matched pairwise: a rank that posted more receives from a peer than
    that peer posted sends to it waits on that peer (and the converse for sends). A rank blocked
    in its k-th collective waits on the ranks that made fewer than k collective calls.
    """
    sends = Counter((e["rank"], e["peer"]) for e in events if e["op"] == "send")
    recvs = Counter((e["peer"], e["rank"]) for e in events if e["op"] == "recv")
    colls = Counter(e["rank"] for e in events if e["op"] not in P2P_OPS)
    lines: list[tuple[str, str]] = []
    for report in ranks:
        if report["state"] not in ("blocked", "running"):
            continue
        r = report["rank"]
        waits: list[tuple[str, str]] = []
        for peer in range(len(ranks)):
            if recvs[(peer, r)] > sends[(peer, r)]:
                en, zh = _state_of(ranks, peer)
                line, line_zh = _at(_last_of(events, r, "recv", peer))
                waits.append((f"rank {r} waits in recv from rank {peer}{line}; rank {peer} {en}",
                              f"rank {r} 在 recv 中等待 rank {peer}{line_zh}；rank {peer} {zh}"))
            if sends[(r, peer)] > recvs[(r, peer)] and report["state"] == "blocked":
                en, zh = _state_of(ranks, peer)
                line, line_zh = _at(_last_of(events, r, "send", peer))
                waits.append((f"rank {r} waits in send to rank {peer}{line}, which never receives "
                               f"it; rank {peer} {en}",
                               f"rank {r} 在 send 中等待 rank {peer} 接收{line_zh}；rank {peer} {zh}"))
        last = _last_event(events, r)
        if last is not None and last["op"] not in P2P_OPS:
            behind = [p for p in range(len(ranks)) if colls[p] < colls[r]]
            if behind:
                names = ", ".join(f"rank {p}" for p in behind)
                line, line_zh = _at(last)
                them_zh = "它没有进行这次调用" if len(behind) == 1 else "它们没有进行这次调用"
                waits.append((f"rank {r} waits in {last['op']} (call #{colls[r]}){line} for "
                              f"{names}, which never made that call",
                              f"rank {r} 在第 {colls[r]} 次 {last['op']}{line_zh} 中等待 {names}，"
                              f"{them_zh}"))
        if not waits and report["state"] == "blocked":
            op = report.get("waiting") or (last["op"] if last else "communication")
            waits.append((f"rank {r} is blocked in {op}", f"rank {r} 阻塞在 {op} 中"))
        lines += waits
    return lines
