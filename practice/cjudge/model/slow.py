"""Why a ``too_slow`` run is slow, from the critical path of its schedule.

The case's schedule (:mod:`.schedule`, :mod:`.critical`) walks back from the last rank to finish
through the transfers each one waited for, at the size the bound judged worst. Its hops, with
the lines that posted them, say which ranks and steps make the run long; their shape names the
pattern:

* **a chain**: each transfer forwards what the one before brought, through distinct ranks, more
  of them in a row than the bound allows;
* **one port**: every transfer goes into (or out of) one rank from (to) a different one each
  time, and its port takes one at a time;
* **one at a time**: no two transfers of the whole run are ever in flight together;
* **serialised**: a rank's send completes before it posts its receive (blocking calls in turn),
  so each step costs two message times.
"""

from __future__ import annotations

from typing import Any

from ..switch.trace import Request, SwitchTrace
from .case import CaseModel
from .critical import Hop
from .schedule import Schedule

#: at most this many groups of hops are named (the first ones and the last)
MAX_GROUPS = 4
OVERLAP = ("Post each step's send and receive together (isend and irecv, then wait on both): a "
           "step then costs one message time.",
           "把每一步的发送和接收同时发出（isend 和 irecv，再等待两者）：这样每一步只花一次消息的时间。")


def _count(value: float) -> str:
    return str(round(value)) if abs(value - round(value)) < 1e-9 else f"{value:.3g}"


def _span(first: int, last: int) -> tuple[str, str]:
    return ((f"step {first}", f"第 {first} 步") if first == last else
            (f"steps {first}–{last}", f"第 {first}–{last} 步"))


def _groups(hops: list[Hop]) -> list[tuple[str, str]]:
    """Consecutive hops posted by one line, each as (English, Chinese)."""
    runs: list[list[Hop]] = []
    for hop in hops:
        if runs and runs[-1][-1].line == hop.line and \
                (hop.src is None) == (runs[-1][-1].src is None):
            runs[-1].append(hop)
        else:
            runs.append([hop])
    out = []
    for run in runs:
        line = run[0].line
        at, at_zh = (f"line {line}: ", f"第 {line} 行：") if line else ("", "")
        span, span_zh = _span(run[0].step, run[-1].step)
        if run[0].src is None:  # collectives
            # as the learner calls them: symm.barrier, not the switch's symm_barrier
            kinds = ", ".join(dict.fromkeys(h.kind.replace("symm_", "symm.", 1) for h in run))
            waited = {h.waited for h in run}  # the rank the path runs through
            whose, whose_zh = (f"rank {run[0].waited}'s ", f"rank {run[0].waited} 的 ") \
                if len(waited) == 1 and None not in waited else ("", "")
            out.append((f"{at}{whose}{kinds} ({span})", f"{at_zh}{whose_zh}{kinds}（{span_zh}）"))
            continue
        parts = [[run[0].src, run[0].dst]]  # chains of ranks, each with its repeats
        repeats = [1]
        for prev, hop in zip(run, run[1:], strict=False):
            if (hop.src, hop.dst) == (prev.src, prev.dst) and len(parts[-1]) == 2:
                repeats[-1] += 1
            elif hop.src == prev.dst and repeats[-1] == 1:
                parts[-1].append(hop.dst)
            else:
                parts.append([hop.src, hop.dst])
                repeats.append(1)
        ranks = ", ".join(" → ".join(map(str, p)) + (f" ×{k}" if k > 1 else "")
                          for p, k in zip(parts, repeats, strict=True))
        out.append((f"{at}rank {ranks} ({span})", f"{at_zh}rank {ranks}（{span_zh}）"))
    if len(out) > MAX_GROUPS:
        out = [*out[:MAX_GROUPS - 1], ("…", "…"), out[-1]]
    return out


def _serialised(trace: SwitchTrace) -> set[int]:
    """The ranks that send and receive but never have a send and a receive posted at once:
    each waits for one before it posts the other (blocking calls in turn)."""
    graded = {r["id"]: r for r in trace["requests"] if r["graded"] and r["kind"] in ("send", "recv")}
    events = sorted([(r["posted"], 0, r) for r in graded.values()]
                    + [(w["begin"], 1, graded[w["request"]]) for w in trace["waits"]
                       if w["request"] in graded], key=lambda e: (e[0], e[1]))
    kinds: dict[int, set[str]] = {}
    overlapped: set[int] = set()
    open_: dict[int, set[int]] = {}  # per rank, the requests posted and not yet waited for
    for _, what, req in events:
        rank = req["rank"]
        kinds.setdefault(rank, set()).add(req["kind"])
        pending = open_.setdefault(rank, set())
        if what == 0:
            if any(graded[o]["kind"] != req["kind"] for o in pending):
                overlapped.add(rank)
            pending.add(req["id"])
        else:
            pending.discard(req["id"])
    return {r for r, k in kinds.items() if len(k) == 2 and r not in overlapped}


def _pattern(hops: list[Hop], bound_steps: float, serialised: set[int],
             alone: bool, allowed: tuple[str, ...]
             ) -> tuple[tuple[str, str], tuple[str, str] | None]:
    """The pattern the hops show, (English, Chinese), and the advice it calls for, if any.
    ``alone``: no two transfers of the run overlap in time."""
    if len(hops) < 2 or any(h.src is None for h in hops) or len(hops) <= bound_steps:
        return ("", ""), None
    pairs = list(zip(hops, hops[1:], strict=False))
    ranks = [hops[0].src, *(h.dst for h in hops)]
    bound, many = _count(bound_steps), len(hops)
    if all(b.src == a.dst for a, b in pairs) and len(set(ranks)) == len(ranks):
        return ((f"A chain: each transfer waits for the one before, {many} in a row through "
                 f"{len(ranks)} ranks, where the bound pays for {bound}.",
                 f"这是一条链：每次传输都要等前一次完成，{len(ranks)} 个 rank 之间连续 "
                 f"{many} 次，而上限只计 {bound} 次。"), None)
    for end, way, way_zh, far in (("dst", "into", "进入", "src"), ("src", "out of", "离开", "dst")):
        if len({getattr(h, end) for h in hops}) == 1 and len({getattr(h, far) for h in hops}) == many:
            rank = getattr(hops[0], end)
            return ((f"Every transfer on it goes {way} rank {rank}, whose port takes one at a "
                     f"time: {many} in a row where the bound pays for {bound}.",
                     f"其中每次传输都{way_zh} rank {rank}，而它的端口一次只能传一条：连续 "
                     f"{many} 次，而上限只计 {bound} 次。"), None)
    if alone:
        return ((f"Only one transfer is ever in flight: each waits for the one before, {many} "
                 f"in a row where the bound pays for {bound}.",
                 f"任何时刻都只有一次传输在进行：每次传输都要等前一次完成，连续 {many} 次，而上限"
                 f"只计 {bound} 次。"), None)
    for a, b in pairs:  # a rank that sends and receives in turn, on the path between them
        if b.dst == a.src and a.src in serialised:  # its send, then its receive
            rank, first, then = a.src, ("send", a.line), ("receive", b.recv_line)
        elif b.src == a.dst and a.dst in serialised:  # its receive, then its send
            rank, first, then = a.dst, ("receive", a.recv_line), ("send", b.line)
        else:
            continue
        zh = {"send": "发送", "receive": "接收"}
        overlap = "isend" in allowed and "irecv" in allowed
        return ((f"Sends and receives do not overlap: rank {rank} waits for its {first[0]} "
                 f"(line {first[1]}) before it posts its {then[0]} (line {then[1]}), so each "
                 f"step costs two message times: {many} in a row where the bound pays for "
                 f"{bound}.",
                 f"发送与接收没有重叠：rank {rank} 等{zh[first[0]]}（第 {first[1]} 行）完成后才"
                 f"发出{zh[then[0]]}（第 {then[1]} 行），所以每一步要花两次消息的时间：连续 "
                 f"{many} 次，而上限只计 {bound} 次。"), OVERLAP if overlap else None)
    return ((f"That is {many} transfers in a row where the bound pays for {bound}.",
             f"这是连续 {many} 次传输，而上限只计 {bound} 次。"), None)


def _computes_pattern(trace: SwitchTrace) -> tuple[str, str] | None:
    """What a pipeline's ranks show around the judge's functions: a rank that computes every
    microbatch before it sends the first (or receives every one before its first compute), or
    one that waits for each send before it computes the next."""
    computes = [c for c in trace.get("computes", []) if c.get("graded", True)]
    graded = {r["id"]: r for r in trace["requests"] if r["graded"]}
    for rank in sorted({c["rank"] for c in computes}):
        mine = [c for c in computes if c["rank"] == rank]
        if len(mine) < 2:
            continue
        first, last, name = mine[0], mine[-1], mine[0]["name"]
        sends = [r for r in graded.values() if r["rank"] == rank and r["kind"] == "send"]
        recvs = [w for w in trace["waits"] if w["rank"] == rank and w["end"] is not None
                 and w["request"] in graded and graded[w["request"]]["kind"] == "recv"]
        if len(sends) >= 2 and min(r["posted"] for r in sends) > last["t"]:
            line = min(sends, key=lambda r: r["posted"])["line"]
            return (f"Rank {rank} computes all {len(mine)} of its {name} calls (line "
                    f"{first['line']}) before it sends the first (line {line}): the next stage "
                    "waits for every microbatch, and the stages work one after another.",
                    f"rank {rank} 先完成全部 {len(mine)} 次 {name} 调用（第 {first['line']} 行）才"
                    f"发送第一个（第 {line} 行）：下一个 stage 要等所有微批次，各 stage 只能依次"
                    "工作。")
        if len(recvs) >= 2 and max(w["end"] or 0 for w in recvs) < first["t"]:
            line = graded[recvs[0]["request"]]["line"]
            return (f"Rank {rank} receives all {len(recvs)} of its inputs (line {line}) before "
                    f"its first {name} call (line {first['line']}): it waits for every "
                    "microbatch, and the stages work one after another.",
                    f"rank {rank} 先接收全部 {len(recvs)} 个输入（第 {line} 行）才第一次调用 "
                    f"{name}（第 {first['line']} 行）：它要等所有微批次，各 stage 只能依次工作。")
        program = sorted([(r["posted"], r["id"]) for r in sends]
                         + [(w["begin"], -1 - w["request"]) for w in trace["waits"]
                            if w["rank"] == rank] + [(c["t"], None) for c in mine],
                         key=lambda e: e[0])  # this rank's posts, waits and computes in order
        blocking = [post for (_, post), (_, then) in zip(program, program[1:], strict=False)
                    if post is not None and post >= 0 and then == -1 - post]
        if len(blocking) >= 2 and len(blocking) == len(sends) and mine[-1]["t"] > program[0][0]:
            line = graded[blocking[0]]["line"]
            return (f"Rank {rank} waits for each send (line {line}) to be taken before it "
                    f"computes the next microbatch: its {name} calls and its sends do not overlap.",
                    f"rank {rank} 每次发送（第 {line} 行）都要等对方接收后才计算下一个微批次："
                    f"它的 {name} 调用与发送没有重叠。")
        waited = _waited_at_once(rank, mine, graded, trace)
        if waited is not None:
            return waited
    return None


def _waited_at_once(rank: int, mine: list[Any], graded: dict[int, Request],
                    trace: SwitchTrace) -> tuple[str, str] | None:
    """A rank that waits for each of its non-blocking receives before any of its judge's
    function calls runs: the transfers could have hidden behind them, and do not."""
    begun: dict[int, int] = {}
    for w in trace["waits"]:
        if w["rank"] == rank:
            begun.setdefault(w["request"], w["begin"])
    recvs = [r for r in graded.values() if r["rank"] == rank and r["kind"] == "recv"
             and r["api"] == "irecv" and r["id"] in begun]
    if len(recvs) < 2 or any(r["posted"] < c["t"] < begun[r["id"]] for r in recvs for c in mine):
        return None
    later = [c for c in mine if c["t"] > begun[recvs[0]["id"]]]
    if not later:
        return None
    line, name, at = recvs[0]["line"], mine[0]["name"], later[0]["line"]
    return (f"Rank {rank} waits for each irecv (line {line}) right after posting it, before its "
            f"next {name} call (line {at}): the transfers and the {name} calls do not overlap.",
            f"rank {rank} 每次发出 irecv（第 {line} 行）后立即等待，之后才调用 {name}（第 {at} "
            f"行）：传输与 {name} 调用没有重叠。")


def explain(case: CaseModel, schedule: Schedule, trace: SwitchTrace,
            allowed: tuple[str, ...]) -> tuple[str, str]:
    """The too_slow message of ``case`` with what its schedule's critical path shows: the
    ranks, steps and lines on it, the pattern, and the advice the pattern calls for when the
    exercise allows it (else the exercise's own)."""
    hops = schedule.critical
    if not hops:
        return case.composed()
    groups = _groups(hops)
    if len(hops) == 1:  # what came before it was not a transfer (a judge's function)
        path = (f"Its critical path ends in one transfer: {groups[0][0]}.",
                f"关键路径以一次传输结束：{groups[0][1]}。")
    else:
        path = (f"Its critical path is {len(hops)} transfers one after another: "
                f"{'; '.join(g[0] for g in groups)}.",
                f"关键路径是先后相继的 {len(hops)} 次传输：{'；'.join(g[1] for g in groups)}。")
    pattern, advice = _pattern(hops, case.bound_steps, _serialised(trace), schedule.alone,
                               allowed)
    if case.worst and case.worst["compute_s"]:  # the judge's functions cost time on the critical path
        pattern = _computes_pattern(trace) or pattern
    if pattern[0]:
        path = (f"{path[0]} {pattern[0]}", path[1] + pattern[1])
    return case.composed(path, advice)
