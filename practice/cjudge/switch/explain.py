"""Who waits on whom in a deadlock: as data read from the switch's trace (exact, not guessed),
and as sentences that group the ranks stuck the same way; where the ranks were when a case hit
its time limit (:func:`stuck_message`), in the same sentences.

:func:`deadlock_facts` is what a case carries (``case["deadlock"]``): the cycle of the wait-for
graph, each blocked rank's call and line and the ranks it waits on, and the sentences. The web
app draws from the data; the CLI prints the sentences.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any, TypedDict

from ..contract.primitives import P2P_OPS, call_name
from ..contract.protocol import RankReport
from .trace import Request, SwitchTrace, WaitEdge


class Blocked(TypedDict):
    """A rank blocked when the case stopped: in which call, at which line, waiting on whom."""

    rank: int
    kind: str  # the switch's kind of call (recv, send, all_reduce, ...)
    api: str  # the call as every message names it (``primitives.call_name``)
    line: int | None  # where the call was posted
    #: where the rank waits on it (``req.wait()``; a blocking call's: its own line), if known
    waited: int | None
    on: list[int]  # the ranks it waits on
    any_source: bool  # a receive from any rank


class Sentence(TypedDict):
    en: str
    zh: str


class DeadlockFacts(TypedDict):
    """A deadlock as data: the cycle (first rank repeated at the end; empty if none), the
    blocked ranks, the sentences that say who waits on whom (the cycle aside), and the usual
    fix for the deadlock's shape (:func:`advice`: none, or one sentence)."""

    cycle: list[int]
    blocked: list[Blocked]
    lines: list[Sentence]
    advice: list[Sentence]


def rank_list(ranks: list[int]) -> str:
    """``0–4``, ``0, 2, 5``, ``1–3, 7``: runs of three or more as a range."""
    parts: list[str] = []
    for _, run in groupby(enumerate(sorted(ranks)), key=lambda pair: pair[1] - pair[0]):
        values = [r for _, r in run]
        parts += [f"{values[0]}–{values[-1]}"] if len(values) > 2 else [str(v) for v in values]
    return ", ".join(parts)


def _who(ranks: list[int]) -> tuple[str, str]:
    """("rank 2" | "ranks 0–4", the Chinese)."""
    return (f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {rank_list(ranks)}",
            f"rank {rank_list(ranks)}")


def _at(line: int | None) -> tuple[str, str]:
    return (f" (line {line})", f"（第 {line} 行）") if line else ("", "")


def _in_zh(call: str, at_zh: str) -> str:
    """``在 recv（第 7 行）中`` or ``在 recv 中``: no space after a full-width bracket."""
    return f"在 {call}{at_zh}中" if at_zh else f"在 {call} 中"


def _apart(b: Blocked) -> int | None:
    """The line of the rank's wait when it is not the call's own (a request posted at one line,
    ``wait()``-ed at another): where the rank is stuck, which its sentence names first."""
    return b["waited"] if b["waited"] is not None and b["waited"] != b["line"] else None


def _posted(b: Blocked) -> tuple[str, str]:
    """`` (posted at line 8)`` and ``第 8 行挂出的 `` (or nothing, the line unknown)."""
    return (f" (posted at line {b['line']})", f"第 {b['line']} 行挂出的 ") if b["line"] else \
        ("", " ")


def _open_waits(trace: SwitchTrace) -> dict[int, int | None]:
    """Each request a rank still waited on when the case stopped: the line of its wait."""
    return {w["request"]: w.get("line") for w in trace["waits"] if w["end"] is None}


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


def _blocked(trace: SwitchTrace) -> list[Blocked]:
    requests: dict[int, Request] = {r["id"]: r for r in trace["requests"]}
    waited = _open_waits(trace)
    out: dict[int, Blocked] = {}
    for edge in trace["deadlock"]:
        req = requests[edge["request"]]
        entry = out.setdefault(edge["rank"], Blocked(
            rank=edge["rank"], kind=req["kind"], api=call_name(req["api"], req["kind"]),
            line=req["line"],
            waited=waited.get(req["id"]), on=[],
            any_source=req["kind"] in P2P_OPS and req["peer"] is None))
        entry["on"].append(edge["on"])
    return [out[r] for r in sorted(out)]


def _state(peer: int, ranks: list[RankReport], blocked: dict[int, Blocked]) -> tuple[str, str]:
    """What a waited-on rank is doing, as a clause."""
    if peer in blocked:
        b = blocked[peer]
        apart = _apart(b)
        if apart is not None:
            posted, posted_zh = _posted(b)
            return (f"is itself blocked (line {apart}) waiting for its {b['api']}{posted}",
                    f"自己也阻塞在第 {apart} 行，等待{posted_zh}{b['api']}")
        en, zh = _at(b["line"])
        return f"is itself blocked in {b['api']}{en}", f"自己也阻塞在 {b['api']}{zh}"
    state = ranks[peer]["state"] if peer < len(ranks) else "returned"
    return {"failed": ("has failed", "已出错"), "running": ("is still computing", "仍在计算")
            }.get(state, ("has returned", "已经返回"))


def _p2p(group: list[Blocked], ranks: list[RankReport], blocked: dict[int, Blocked]) -> Sentence:
    """Ranks blocked in the same point-to-point call, line and peer state."""
    first = group[0]
    if _apart(first) is not None:
        return _p2p_apart(group, ranks, blocked)
    at, at_zh = _at(first["line"])
    api, is_recv = first["api"], first["kind"] in ("recv", "irecv")
    if first["any_source"]:
        who, who_zh = _who([b["rank"] for b in group])
        return Sentence(en=f"{who} wait{'s' if len(group) == 1 else ''} in {api} from any rank{at}",
                        zh=f"{who_zh} 在 {api} 中等待来自任意 rank 的数据{at_zh}")
    peer = first["on"][0]
    state, state_zh = _state(peer, ranks, blocked)
    if len({b["on"][0] for b in group}) == 1:  # one peer: "rank(s) … wait in recv from rank 0"
        who, who_zh = _who([b["rank"] for b in group])
        waits = "waits" if len(group) == 1 else "wait"
        if is_recv:
            return Sentence(en=f"{who} {waits} in {api} from rank {peer}{at}; rank {peer} {state}",
                            zh=f"{who_zh} 在 {api} 中等待来自 rank {peer} 的数据{at_zh}；"
                               f"rank {peer} {state_zh}")
        return Sentence(en=f"{who} {waits} in {api} to rank {peer}{at}, which never receives "
                           f"{'it' if len(group) == 1 else 'them'}; rank {peer} {state}",
                        zh=f"{who_zh} 在 {api} 中等待 rank {peer} 接收{at_zh}；rank {peer} {state_zh}")
    who, who_zh = _who([b["rank"] for b in group])
    word, word_zh = ("from", "等待") if is_recv else ("to", "发送给")
    pairs = ", ".join(f"{b['rank']} {word} {b['on'][0]}" for b in group)
    pairs_zh = "，".join(f"{b['rank']} {word_zh} {b['on'][0]}" for b in group)
    return Sentence(en=f"{who} wait in {api}{at}, each {word} a peer that {state} ({pairs})",
                    zh=f"{who_zh} {_in_zh(api, at_zh)}等待，其对端{state_zh}（{pairs_zh}）")


def _p2p_apart(group: list[Blocked], ranks: list[RankReport],
               blocked: dict[int, Blocked]) -> Sentence:
    """Ranks blocked waiting, at one line, on a point-to-point request posted at another: the
    wait's line first (where the rank is stuck), then the post's."""
    first = group[0]
    waited, (posted, posted_zh) = _apart(first), _posted(first)
    api, is_recv = first["api"], first["kind"] in ("recv", "irecv")
    who, who_zh = _who([b["rank"] for b in group])
    one = len(group) == 1
    waits, its = ("waits", "its") if one else ("wait", "their")
    head, head_zh = f"{who} {waits} (line {waited}) for {its} {api}", \
        f"{who_zh} 在第 {waited} 行等待{posted_zh}{api}"
    if first["any_source"]:
        return Sentence(en=f"{head} from any rank{posted}", zh=f"{head_zh} 收到来自任意 rank 的数据")
    peer = first["on"][0]
    state, state_zh = _state(peer, ranks, blocked)
    if len({b["on"][0] for b in group}) == 1:
        if is_recv:
            return Sentence(en=f"{head} from rank {peer}{posted}; rank {peer} {state}",
                            zh=f"{head_zh} 收到来自 rank {peer} 的数据；rank {peer} {state_zh}")
        return Sentence(en=f"{head} to rank {peer}{posted}, which never receives "
                           f"{'it' if one else 'them'}; rank {peer} {state}",
                        zh=f"{head_zh} 被 rank {peer} 接收；rank {peer} {state_zh}")
    word, word_zh = ("from", "等待") if is_recv else ("to", "发送给")
    pairs = ", ".join(f"{b['rank']} {word} {b['on'][0]}" for b in group)
    pairs_zh = "，".join(f"{b['rank']} {word_zh} {b['on'][0]}" for b in group)
    return Sentence(en=f"{head}{posted}, each {word} a peer that {state} ({pairs})",
                    zh=f"{head_zh}，其对端{state_zh}（{pairs_zh}）")


def _collective(group: list[Blocked], ranks: list[RankReport],
                blocked: dict[int, Blocked]) -> Sentence:
    """Ranks blocked in the same collective, line and set of absent members."""
    first = group[0]
    who, who_zh = _who([b["rank"] for b in group])
    one = len(group) == 1
    waits, waits_zh = _waits_in(first, first["api"], "its" if one else "their")
    other = next((blocked[p] for p in first["on"]
                  if p in blocked and blocked[p]["kind"] not in P2P_OPS), None)
    if other is not None:
        o_waits, o_waits_zh = _waits_in(other, other["api"], "its")
        return Sentence(
            en=f"{who} wait{'s' if one else ''} {waits} while rank {other['rank']} waits "
               f"{o_waits}: every rank must make the same collective calls, with the same root "
               "and op, in the same order",
            zh=f"{who_zh} {waits_zh}，而 rank {other['rank']} {o_waits_zh}：所有 rank 必须以相同"
               "顺序进行相同的集合通信（root 和归约操作也要相同）")
    clauses, clauses_zh = [], []
    for state, members in groupby(sorted(first["on"], key=lambda p: _state(p, ranks, blocked)),
                                  key=lambda p: _state(p, ranks, blocked)):
        peers = list(members)
        them, them_zh = _who(peers)
        done = {"has returned": "returned without making that call",
                "has failed": "failed"}.get(state[0], state[0].replace("is itself", "is"))
        done_zh = {"已经返回": "没有进行这次调用就返回了"}.get(state[1], state[1])
        clauses.append(f"{them}, which {done}")
        clauses_zh.append(f"{them_zh}，{done_zh}")
    return Sentence(en=f"{who} wait{'s' if one else ''} {waits} for " + "; and for ".join(clauses),
                    zh=f"{who_zh} {waits_zh}" + ("，所等的 " if _apart(first) is not None else " ")
                    + "；以及 ".join(clauses_zh))


def _waits_in(b: Blocked, call: str, its: str) -> tuple[str, str]:
    """Where a rank waits in a collective: ``in all_reduce (line 7)`` (``在 all_reduce（第 7
    行）中等待``), or, waited at a line of its own, ``(line 12) in its all_reduce (posted at line
    7)`` (``在第 12 行等待第 7 行挂出的 all_reduce``)."""
    apart = _apart(b)
    if apart is None:
        at, at_zh = _at(b["line"])
        return f"in {call}{at}", f"{_in_zh(call, at_zh)}等待"
    posted, posted_zh = _posted(b)
    return f"(line {apart}) in {its} {call}{posted}", f"在第 {apart} 行等待{posted_zh}{call}"


def _tags(trace: SwitchTrace) -> list[Sentence]:
    """Sends and receives left unmatched between the same two ranks only because their tags
    differ, grouped by the two tags and lines."""
    pending = [r for r in trace["requests"] if r["kind"] in ("send", "recv") and r["message"] is None]
    pairs: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for send in (r for r in pending if r["kind"] == "send"):
        for recv in (r for r in pending if r["kind"] == "recv"):
            if recv["rank"] == send["peer"] and recv["peer"] in (send["rank"], None) and \
                    recv["group"] == send["group"] and recv["tag"] != send["tag"]:
                key = (send["tag"], send["line"], recv["tag"], recv["line"])
                if (send["rank"], recv["rank"]) not in pairs.setdefault(key, []):
                    pairs[key].append((send["rank"], recv["rank"]))
                break
    out = []
    for (stag, sline, rtag, rline), found in pairs.items():
        at, at_zh = _at(sline)
        rat, rat_zh = _at(rline)
        ways = ", ".join(f"{a} to {b}" for a, b in found)
        ways_zh = "，".join(f"{a} 发给 {b}" for a, b in found)
        out.append(Sentence(
            en=f"sends with tag {stag}{at} are left unmatched by receives with tag {rtag}{rat} "
               f"({ways}): a send and its receive must use the same tag",
            zh=f"标签为 {stag} 的发送{at_zh}与标签为 {rtag} 的接收{rat_zh}无法匹配（{ways_zh}）："
               "发送和对应的接收必须使用相同的标签"))
    return out


def _sentences(blocked: list[Blocked], ranks: list[RankReport]) -> list[Sentence]:
    """Who waits on whom, the ranks stuck the same way (call, line, state of whom they wait on)
    said once."""
    by_rank = {b["rank"]: b for b in blocked}

    def key(b: Blocked) -> tuple[Any, ...]:
        if b["kind"] in P2P_OPS:
            peer_state = () if b["any_source"] else _state(b["on"][0], ranks, by_rank)
            return (0, b["kind"], b["api"], b["line"] or 0, _apart(b) or 0, b["any_source"],
                    peer_state)
        return (1, b["kind"], b["api"], b["line"] or 0, _apart(b) or 0, tuple(b["on"]))

    return [(_p2p if k[0] == 0 else _collective)(list(g), ranks, by_rank)
            for k, g in groupby(sorted(blocked, key=key), key=key)]


def deadlock_facts(trace: SwitchTrace, ranks: list[RankReport]) -> DeadlockFacts:
    """The deadlock of a stopped case: cycle, blocked ranks, sentences, and the fix."""
    blocked = _blocked(trace)
    cycle = _cycle(trace["deadlock"])
    return DeadlockFacts(cycle=cycle, blocked=blocked, lines=_sentences(blocked, ranks)
                         + _tags(trace), advice=advice(trace, cycle, blocked, ranks))


def _head_on(cycle: list[int], blocked: dict[int, Blocked]) -> Sentence | None:
    """Every rank of the cycle blocked in a blocking point-to-point call of one direction: each
    sends first (or receives first) to a peer doing the same. That a receiver would send after
    its receive is not known: that fix is said as conditional."""
    on_cycle = [blocked[r] for r in cycle[:-1] if r in blocked]
    kinds = {b["kind"] for b in on_cycle}
    if len(on_cycle) < 2 or len(on_cycle) != len(cycle) - 1 or len(kinds) != 1 or \
            not kinds <= P2P_OPS or any(b["api"] not in ("send", "recv") for b in on_cycle):
        return None
    if kinds == {"send"}:
        return Sentence(
            en="fix: every rank of the cycle sends first, and a blocking send waits for its "
               "receive; post the send non-blocking (isend, then receive, then wait on the "
               "send), or order by parity (even ranks send first, odd ranks receive first)",
            zh="改法：循环中的每个 rank 都先发送，而阻塞发送要等对方接收；改为非阻塞发送（先 isend，再接收，"
               "最后等待发送完成），或按奇偶排序（偶数 rank 先发后收，奇数 rank 先收后发）")
    return Sentence(
        en="fix, if each rank of the cycle sends to the one waiting on it after this receive: "
           "every rank receives first, so none sends; post the receive non-blocking (irecv) "
           "before the send and wait on it after, or order by parity (even ranks send first, "
           "odd ranks receive first)",
        zh="改法（如果循环中的每个 rank 在这次接收之后会向等它的 rank 发送）：每个 rank 都先接收，"
           "因此谁也不发送；先用非阻塞接收（irecv）挂好接收再发送，"
           "发送之后再等待它，或按奇偶排序（偶数 rank 先发后收，奇数 rank 先收后发）")


def _uneven(trace: SwitchTrace, blocked: list[Blocked], ranks: list[RankReport],
            by_rank: dict[int, Blocked]) -> Sentence | None:
    """A rank waits on one that returned: the ranks made different numbers of calls (unless a
    rank failed: its error is the cause)."""
    if any(r["state"] == "failed" for r in ranks):
        return None
    for b in blocked:
        gone = [p for p in b["on"] if _state(p, ranks, by_rank)[0] == "has returned"]
        if gone and not b["any_source"]:
            counts, counts_zh = _pair_counts(trace, b, gone[0])
            return Sentence(
                en=f"fix: rank {gone[0]} returned while rank {b['rank']} still expects a call of "
                   f"it, so the ranks make different numbers of calls{counts}; count each rank's "
                   "loop (the number of steps, a pipeline's warm-up count, who skips a round) so "
                   "that every call has its partner",
                zh=f"改法：rank {gone[0]} 已经返回，而 rank {b['rank']} 仍在等它的调用，说明各 "
                   f"rank 的调用次数不同{counts_zh}；逐个 rank 数一数循环的次数（步数、流水线的预热"
                   "次数、谁跳过了某一轮），让每次调用都有对应的另一方")
    return None


def _pair_counts(trace: SwitchTrace, b: Blocked, gone: int) -> tuple[str, str]:
    """" (rank 3 sends rank 2 8 messages, line 34; rank 2 posts 7 receives from it, line 31)":
    the two ends' point-to-point calls in the direction ``b``'s blocked call waits on, with
    their lines; nothing for a collective."""
    if b["kind"] not in P2P_OPS:
        return "", ""
    src, dst = (b["rank"], gone) if b["kind"] == "send" else (gone, b["rank"])
    graded = [r for r in trace["requests"] if r["graded"]]
    sends = [r for r in graded if r["kind"] == "send" and r["rank"] == src and r["peer"] == dst]
    recvs = [r for r in graded if r["kind"] == "recv" and r["rank"] == dst
             and r["peer"] in (src, None)]

    def lines(calls: list[Request]) -> tuple[str, str]:
        at = sorted({r["line"] for r in calls if r["line"]})
        return (f", line{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}",
                f"，第 {'、'.join(map(str, at))} 行") if at else ("", "")

    (s_at, s_zh), (r_at, r_zh) = lines(sends), lines(recvs)
    return (f" (rank {src} sends rank {dst} {len(sends)} message{'s' if len(sends) != 1 else ''}"
            f"{s_at}; rank {dst} posts {len(recvs)} receive{'s' if len(recvs) != 1 else ''} from "
            f"it{r_at})",
            f"（rank {src} 向 rank {dst} 发送了 {len(sends)} 条消息{s_zh}；rank {dst} 挂出了 "
            f"{len(recvs)} 次来自它的接收{r_zh}）")


def _overlap(a: Request, b: Request) -> bool:
    """Whether two requests were outstanding at the same time."""
    end_a, end_b = a["completed"] or 1 << 62, b["completed"] or 1 << 62
    return a["posted"] < end_b and b["posted"] < end_a


def _two_flows(trace: SwitchTrace, blocked: list[Blocked]) -> Sentence | None:
    """A blocked receive on a pair (source, destination, tag) that carried two flows at once:
    receives (or sends) from two lines outstanding together, which match in posting order
    whatever flow each message belongs to."""
    for b in blocked:
        if b["kind"] != "recv" or b["any_source"]:
            continue
        peer = b["on"][0]
        mine = next(r for r in trace["requests"] if r["rank"] == b["rank"] and
                    r["kind"] == "recv" and r["line"] == b["line"] and r["peer"] == peer)
        for role, rank, other in (("recv", b["rank"], peer), ("send", peer, b["rank"])):
            same = [r for r in trace["requests"] if r["graded"] and r["kind"] == role and
                    r["rank"] == rank and r["peer"] == other and r["tag"] == mine["tag"]]
            pair = next(((x, y) for x in same for y in same
                         if x["line"] and y["line"] and x["line"] < y["line"] and _overlap(x, y)),
                        None)
            if pair is not None:
                lines = f"lines {pair[0]['line']} and {pair[1]['line']}"
                what, what_zh = ("receives", "接收") if role == "recv" else ("sends", "发送")
                return Sentence(
                    en=f"fix: rank {peer} → rank {b['rank']} carries two flows with tag "
                       f"{mine['tag']} at once ({what} at {lines}); messages between one pair "
                       "on one tag match in the order they were posted, whatever flow each "
                       "belongs to: give each flow its own tag (e.g. tag=tree)",
                    zh=f"改法：rank {peer} → rank {b['rank']} 之间同时有两路数据使用标签 "
                       f"{mine['tag']}（第 {pair[0]['line']} 行和第 {pair[1]['line']} 行的"
                       f"{what_zh}）；同一对 rank、同一标签上的消息按挂出的顺序匹配，不管它属于"
                       "哪一路：给每一路数据用不同的标签（例如 tag=tree）")
    return None


def _crossed(trace: SwitchTrace) -> Sentence | None:
    """A receive still open from one rank while a send to its rank from another rank, on the
    same tag and group, waits unreceived: the receive names the wrong source, or that send the
    wrong destination (a send from its source on another tag is ``_tags``'s)."""
    requests = trace["requests"]
    for mine in sorted(requests, key=lambda r: (r["rank"], r["id"])):  # the same on every runtime
        if mine["kind"] != "recv" or not mine["graded"] or mine["completed"] is not None or \
                mine["peer"] is None:
            continue
        rank, peer = mine["rank"], mine["peer"]
        other = min((r for r in requests if r["graded"] and r["kind"] == "send" and
                     r["message"] is None and r["peer"] == rank and r["rank"] != peer and
                     r["group"] == mine["group"] and r["tag"] == mine["tag"]),
                    key=lambda r: (r["rank"], r["id"]), default=None)
        if other is not None:
            at, at_zh = _at(mine["line"])
            them, them_at, them_zh = other["rank"], *_at(other["line"])
            return Sentence(
                en=f"fix: rank {rank} receives from rank {peer}{at} while rank {them}'s send to "
                   f"rank {rank}{them_at} is never received: receive from the rank that sends "
                   f"to you (here rank {them}), or send to the rank that waits for you",
                zh=f"改法：rank {rank} 等待接收来自 rank {peer} 的数据{at_zh}，而 rank {them} "
                   f"发给 rank {rank} 的消息{them_zh}一直没有被接收：从真正给你发送的 rank 接收"
                   f"（这里是 rank {them}），或者发给真正在等你的 rank")
    return None


def advice(trace: SwitchTrace, cycle: list[int], blocked: list[Blocked],
           ranks: list[RankReport]) -> list[Sentence]:
    """The usual fix for the deadlock's shape, where it has one: a receive from one rank while
    another's send to it waits unreceived (the source); both ends of a pair blocking the same
    way (non-blocking calls, or order by parity); a rank that returned while another waits on
    it (the ranks' call counts differ: the step or warm-up count); two flows on one pair and
    tag at once (tags)."""
    by_rank = {b["rank"]: b for b in blocked}
    found = [_two_flows(trace, blocked), _crossed(trace),
             _head_on(cycle, by_rank) if cycle else None, _uneven(trace, blocked, ranks, by_rank)]
    return [s for s in found if s is not None][:1]


def _waiting(trace: SwitchTrace) -> list[Blocked]:
    """The ranks still waiting when the case stopped, each in its call, on the ranks it waits
    for: a receive's source, a send's destination, a collective's members that never arrived."""
    requests: dict[int, Request] = {r["id"]: r for r in trace["requests"]}
    waited = _open_waits(trace)
    open_ = [requests[w["request"]] for w in trace["waits"] if w["end"] is None]
    arrived = {(r["group"], r["kind"], r["rank"]) for r in open_ if r["kind"] not in P2P_OPS}
    out: dict[int, Blocked] = {}
    for req in open_:
        if req["kind"] in P2P_OPS:
            on = [] if req["peer"] is None else [req["peer"]]
        else:
            on = [m for m in trace["groups"][req["group"]]
                  if (req["group"], req["kind"], m) not in arrived]
        out.setdefault(req["rank"], Blocked(
            rank=req["rank"], kind=req["kind"], api=call_name(req["api"], req["kind"]),
            line=req["line"],
            waited=waited.get(req["id"]), on=on,
            any_source=req["kind"] in P2P_OPS and req["peer"] is None))
    return [out[r] for r in sorted(out)]


def stuck_message(trace: SwitchTrace, ranks: list[RankReport], limit: float) -> tuple[str, str]:
    """Where the ranks were when the case hit its time limit of ``limit`` seconds: those still
    computing with the call each made last, then those waiting in a call, with its line and
    whom they wait on (grouped as a deadlock's are)."""
    last: dict[int, Request] = {}
    for req in trace["requests"]:
        if req["posted"] >= last.get(req["rank"], req)["posted"]:
            last[req["rank"]] = req
    running = [r["rank"] for r in ranks if r["state"] == "running"]
    who, who_zh = _who(running) if running else ("no rank", "没有 rank")
    en, zh = f"{who} still computing after the {limit:g} s limit", \
        f"{who_zh} 在 {limit:g} 秒限制后仍在计算"
    calls, calls_zh = [], []

    def called(r: int) -> tuple[str, int]:
        return call_name(last[r]["api"], last[r]["kind"]), last[r]["line"] or 0

    for (api, line), group in groupby(sorted((r for r in running if r in last), key=called),
                                      key=called):
        them, them_zh = _who(list(group))
        at, at_zh = _at(line)
        calls.append(f"{them} last called {api}{at}")
        calls_zh.append(f"{them_zh} 最后一次调用的是 {api}{at_zh}")
    lines = _sentences(_waiting(trace), ranks)
    return ("; ".join([en, *calls, *(s["en"] for s in lines)]),
            "；".join([zh, *calls_zh, *(s["zh"] for s in lines)]))


def deadlock_message(facts: DeadlockFacts) -> tuple[str, str]:
    """The case's message: the cycle when there is one, then who waits on whom, then the fix."""
    lines = list(facts["lines"]) + list(facts.get("advice", []))
    if facts["cycle"]:
        arrows = " → ".join(map(str, facts["cycle"]))
        lines.insert(0, Sentence(en=f"cycle {arrows} (each rank waits on the next)",
                                 zh=f"循环等待 {arrows}（每个 rank 都在等下一个）"))
    return ("; ".join(s["en"] for s in lines) or "every rank waits for communication that never "
            "comes", "；".join(s["zh"] for s in lines) or "每个 rank 都在等待永远不会到来的通信")
