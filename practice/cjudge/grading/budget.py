"""``over_budget`` explained by the trace: what the rank over its bound sent, call by call.

The switch's trace gives each call a rank made in the graded function: its line, its kind, its
destination and, for a message, its payload. From them the judge says where the bytes went (to
which ranks, from which lines) and what went twice (the same values to the same rank). What a
receiver needed is the exercise's to say, in its own terms: a grader may define

    needs(case, inputs, rank, calls) -> (english, chinese) | None

(``calls``: the rank's graded calls ``protocol.TraceEvent``, in order), e.g. "rank p needs
only block p of rank 0's row (1 element)".

Bytes are counted as the grader counts them, once per call: a collective by its kind (the
learner's ``all_gather_into_tensor`` and ``all_gather`` are one ``all_gather``), a load from or
a store into another rank's symmetric memory as a load or a store (never a send: the switch
records its message only for the cost model).
"""

from __future__ import annotations

from collections import Counter

from ..contract.primitives import DISPLAY
from ..contract.primitives import call_name as named
from ..contract.units import plural
from ..switch.reduce import DTYPES
from ..switch.trace import Message, Request, SwitchTrace, recorded_values

#: symmetric memory's loads and stores: (English noun, its plural's verb, Chinese noun)
ACCESS = {"symm_read": ("load", "loads", "读取"), "symm_write": ("store", "stores", "写入")}


def ranks_text(ranks: list[int], zh: bool = False) -> str:
    """``rank 2``, ``ranks 1, 2, 3`` (Chinese: ``rank 1、2、3``)."""
    if zh or len(ranks) == 1:
        return f"rank {'、'.join(map(str, ranks))}"
    return f"ranks {', '.join(map(str, ranks))}"


def call_name(req: Request) -> str:
    """The call as every message names it (``primitives.call_name``)."""
    return named(req["api"], req["kind"])


def _moves(req: Request, rank: int) -> bool:
    """Whether ``req`` is one of ``rank``'s graded calls that the byte bound counts."""
    return req["graded"] and req["rank"] == rank and bool(req["sent"] or req["kind"] == "send")


def _accesses(reqs: list[Request], size: int) -> tuple[str, str]:
    """A line's loads (or stores): how many, from (to) which ranks, how many elements."""
    noun, _, zh = ACCESS[reqs[0]["kind"]]
    peers = sorted({r["peer"] for r in reqs if r["peer"] is not None})
    way = "from" if reqs[0]["kind"] == "symm_read" else "to"
    elements = sum(r["sent"] for r in reqs) // size
    return (f"{plural(len(reqs), noun)} ({call_name(reqs[0])}) {way} {ranks_text(peers)}, "
            f"{plural(elements, 'element')}",
            f"{len(reqs)} 次{zh}（{call_name(reqs[0])}），"
            f"{'来自' if way == 'from' else '写往'} {ranks_text(peers, zh=True)}，{elements} 个元素")


def _sends(reqs: list[Request], size: int) -> tuple[str, str]:
    """A line's point-to-point sends: how many messages, to which ranks, how many elements."""
    to = sorted({r["peer"] for r in reqs if r["peer"] is not None})
    elements = sum(r["sent"] for r in reqs) // size
    each = {r["sent"] // size for r in reqs}
    if len(reqs) == 1:
        amount, amount_zh = plural(elements, "element"), f"{elements} 个元素"
    elif len(each) == 1:
        amount, amount_zh = f"{plural(each.pop(), 'element')} each", \
            f"每条 {reqs[0]['sent'] // size} 个元素"
    else:
        amount, amount_zh = f"{plural(elements, 'element')} in all", f"共 {elements} 个元素"
    return (f"{plural(len(reqs), 'message')} to {ranks_text(to)}, {amount}",
            f"向 {ranks_text(to, zh=True)} 发送 {len(reqs)} 条消息，{amount_zh}")


def _where(trace: SwitchTrace, rank: int, size: int) -> tuple[str, str]:
    """The rank's counted calls grouped by line and kind: where its bytes went."""
    groups: dict[tuple[int | None, str], list[Request]] = {}
    for req in trace["requests"]:
        if _moves(req, rank):
            groups.setdefault((req["line"], req["kind"]), []).append(req)
    parts, parts_zh = [], []
    for (line, kind), reqs in groups.items():
        at, at_zh = (f"line {line}: ", f"第 {line} 行：") if line else ("", "")
        if kind == "send":
            en, zh = _sends(reqs, size)
        elif kind in ACCESS:
            en, zh = _accesses(reqs, size)
        else:
            api, elements = call_name(reqs[0]), sum(r["sent"] for r in reqs) // size
            calls = api if len(reqs) == 1 else f"{len(reqs)} {api} calls"
            en, zh = f"{calls}, {plural(elements, 'element')}", f"{len(reqs)} 次 {api}，{elements} 个元素"
        parts.append(f"{at}{en}")
        parts_zh.append(f"{at_zh}{zh}")
    return "; ".join(parts), "；".join(parts_zh)


def _twice(trace: SwitchTrace, rank: int, size: int) -> tuple[str, str] | None:
    """The first payload the rank sent to one rank more than once (the same values again)."""
    lines = {r["id"]: r["line"] for r in trace["requests"] if r["kind"] == "send"}
    seen: dict[tuple[int, str], list[Message]] = {}
    for m in sorted(trace["messages"], key=lambda m: m["send"]):  # in the rank's own order
        if m["src"] == rank and "data" in m and m["bytes"] and m["send"] in lines:
            seen.setdefault((m["dst"], m["data"]["b64"]), []).append(m)
    for (dst, _), again in seen.items():
        if len(again) > 1:
            at = list(dict.fromkeys(str(lines[m["send"]]) for m in again))  # each line once
            count = plural(again[0]["bytes"] // size, "element")
            times = "twice" if len(again) == 2 else f"{len(again)} times"
            where = f"line {at[0]}" if len(at) == 1 else f"lines {', '.join(at)}"
            return (f"it sent the same {count} to rank {dst} {times} ({where})",
                    f"它把同样的 {again[0]['bytes'] // size} 个元素向 rank {dst} 发送了 "
                    f"{len(again)} 次（第 {'、'.join(at)} 行）")
    return None


def over_budget(trace: SwitchTrace, rank: int, sent: int, limit: int, size: int,
                needs: tuple[str, str] | None = None) -> tuple[str, str]:
    """The over_budget message for ``rank``, which sent ``sent`` bytes against ``limit``
    (``size`` bytes an element): where its bytes went, what it sent twice, and ``needs``, what
    its receivers needed (the grader's words)."""
    mine = [r for r in trace["requests"] if _moves(r, rank)]
    where, where_zh = _where(trace, rank, size)
    verb, verb_zh = ("moved", "搬运了") if any(r["kind"] in ACCESS for r in mine) \
        else ("sent", "发送了")
    en = (f"correct, but rank {rank} {verb} {sent} bytes in {plural(len(mine), 'call')} ({where}); "
          f"its bound is {limit} bytes ({plural(limit // size, 'element')})")
    zh = (f"结果正确，但 rank {rank} 通过 {len(mine)} 次调用{verb_zh} {sent} 字节（{where_zh}），"
          f"其上限为 {limit} 字节（{limit // size} 个元素）")
    for why in (_twice(trace, rank, size), needs):
        if why:
            en, zh = f"{en}. {why[0][0].upper()}{why[0][1:]}", f"{zh}。{why[1]}"
    return en, zh


class _Sent:
    """What a rank sent one way: bytes, elements, calls, and their values where recorded."""

    def __init__(self) -> None:
        self.bytes, self.elements, self.calls = 0, 0, 0
        self.name = ""  # a collective's: the first call's name (:func:`call_name`)
        self.values: list[float | int] | None = []

    def add(self, nbytes: int, elements: int, got: list[float | int] | None) -> None:
        self.bytes, self.elements = self.bytes + nbytes, self.elements + elements
        self.calls += 1
        self.values = self.values + got if self.values is not None and got is not None else None


#: how a way of moving bytes is keyed: ("send", "rank d"), ("symm_read", "rank d"), or
#: (a collective's kind, the kind again): aliases of one collective are one way
Way = tuple[str, str]


def _sent_by(trace: SwitchTrace, rank: int) -> dict[Way, _Sent]:
    """What ``rank`` moved, by way: its messages to each rank, its loads from (stores to) each
    rank's symmetric memory, its calls of each collective kind; each call counted once."""
    units = {r["id"]: DTYPES[r["dtype"]][1] if r["dtype"] in DTYPES else 1
             for r in trace["requests"]}
    payload = {m["send"]: recorded_values(m.get("data")) for m in trace["messages"]}
    given = {rid: recorded_values(data) for c in trace["collectives"] if "data" in c
             for rid, data in zip(c["requests"], c["data"], strict=False)}  # a call's input
    sends = {r["id"]: r for r in trace["requests"] if r["kind"] == "send"}
    out: dict[Way, _Sent] = {}
    for m in sorted(trace["messages"], key=lambda m: m["send"]):
        req = sends.get(m["send"])
        if req is not None and m["src"] == rank and \
                m["dst"] != rank and m["bytes"]:
            out.setdefault(("send", f"rank {m['dst']}"), _Sent()).add(
                m["bytes"], req["bytes"] // units[m["send"]], payload[m["send"]])
    for req in trace["requests"]:
        if not (_moves(req, rank) and req["kind"] != "send"):
            continue
        if req["kind"] in ACCESS:
            way: Way = (req["kind"], f"rank {req['peer']}")
            got = payload.get(req["id"])
        else:
            way, got = (req["kind"], req["kind"]), given.get(req["id"])
        entry = out.setdefault(way, _Sent())
        entry.name = entry.name or call_name(req)
        entry.add(req["sent"], req["sent"] // units[req["id"]], got)
    return out


def _phrase(way: Way, name: str, zh: bool) -> tuple[str, str]:
    """(where yours went, what the reference does there), e.g. ("to rank 2", "sends");
    ``name``: a collective's call."""
    kind, key = way
    if kind in ACCESS:
        _, nouns, word = ACCESS[kind]
        if zh:
            return f"{word}{'自' if kind == 'symm_read' else '到'} {key}", word
        return f"{'from' if kind == 'symm_read' else 'to'} {key}", nouns
    if kind == "send":
        return (f"发给 {key}", "发送") if zh else (f"to {key}", "sends")
    return (f"在 {name} 中", "发送") if zh else (f"in {name}", "sends")


def _instead(reference: dict[Way, _Sent], mine: dict[Way, _Sent]) -> list[str]:
    """The reference's ways of moving bytes that the learner does not use, by call name."""
    return list(dict.fromkeys(sent.name or DISPLAY[way[0]] for way, sent in reference.items()
                              if not any(m[0] == way[0] for m in mine)))


def _one(way: Way, got: _Sent, want: _Sent, algo: tuple[str, str],
         instead: list[str]) -> tuple[str, str]:
    """One way the rank moved more than the reference, and why that is more."""
    to, does = _phrase(way, got.name, zh=False)
    to_zh, does_zh = _phrase(way, got.name, zh=True)
    verb = {"symm_read": "loaded ", "symm_write": "stored "}.get(way[0], "")
    why, why_zh = "", ""
    per_call = got.elements // max(got.calls, 1)
    collective = way[0] not in ("send", *ACCESS)
    if collective and not want.calls and instead:
        why = f" ({algo[0]} makes no {got.name} call: it uses {', '.join(instead)} instead)"
        why_zh = f"（{algo[1]}不调用 {got.name}，而是用 {'、'.join(instead)}）"
    elif collective and instead:
        why = f" ({algo[0]} also calls {', '.join(instead)}, which yours never does)"
        why_zh = f"（{algo[1]}还调用了 {'、'.join(instead)}，而你的代码从未调用）"
    elif collective and got.calls > want.calls:
        again = _repeated(got, want)
        why = (f" ({got.calls} calls where {algo[0]} makes {want.calls}"
               + (": the extra ones send again what another call sent; make each once)"
                  if again else ")"))
        why_zh = (f"（{got.calls} 次调用，而{algo[1]}只调用 {want.calls} 次"
                  + ("：多出的调用重复发送了另一次调用已发送的数据；每份数据只发送一次）"
                     if again else "）"))
    elif got.elements == want.elements:
        why = (f" (as many elements, {got.bytes // max(got.elements, 1)} bytes each where "
               f"{algo[0]}'s take {want.bytes // max(want.elements, 1)})")
        why_zh = (f"（元素个数相同，但每个 {got.bytes // max(got.elements, 1)} 字节，而{algo[1]}的"
                  f"每个 {want.bytes // max(want.elements, 1)} 字节）")
    elif way[0] in ACCESS and want.calls and per_call > want.elements // want.calls:
        wants, (noun, _, word) = want.elements // want.calls, ACCESS[way[0]]
        why = (f" (each {noun} moves {plural(per_call, 'element')} where {algo[0]}'s moves "
               f"{wants}: pass {DISPLAY[way[0]]} only the elements you need)")
        why_zh = (f"（你每次{word} {per_call} 个元素，而{algo[1]}每次只{word} {wants} 个："
                  f"{DISPLAY[way[0]]} 只传入所需的元素）")
    elif got.values and want.values:
        wanted = set(want.values)
        unneeded = sum(1 for v in got.values if v not in wanted)
        if unneeded:
            why = (f" ({unneeded} of your {got.elements} elements are values {algo[0]} never "
                   f"{does} there)")
            why_zh = f"（你的 {got.elements} 个元素中有 {unneeded} 个是{algo[1]}从不{does_zh}的）"
    return (f"{verb}{got.bytes} bytes {to} where {algo[0]} {does} {want.bytes}{why}",
            f"{to_zh} {got.bytes} 字节，而{algo[1]}{does_zh} {want.bytes} 字节{why_zh}")


def _repeated(got: _Sent, want: _Sent) -> bool:
    """Whether everything ``got`` sends beyond ``want`` (as many of each value) is values
    ``want`` sends too: the extra calls repeat data, not new data."""
    if not got.values or not want.values:
        return False
    extra = Counter(got.values) - Counter(want.values)
    return bool(extra) and all(value in want.values for value in extra)


def _peers(ways: list[Way]) -> tuple[str, str]:
    """``rank 2`` or ``each of ranks 1, 2, 3`` (Chinese: ``rank 1、2、3 各``) for ways to ranks."""
    ranks = [int(k.split()[1]) for _, k in ways]
    if len(ranks) == 1:
        return f"rank {ranks[0]}", f"rank {ranks[0]}"
    return f"each of {ranks_text(ranks)}", f"{ranks_text(ranks, zh=True)} 各"


def against_reference(learner: SwitchTrace, reference: SwitchTrace, rank: int,
                      algo: tuple[str, str]) -> tuple[str, str] | None:
    """Where ``rank`` moved more than the reference's same rank on the same inputs, and what its
    receivers did not need (elements the reference never sends them, wider elements, a
    collective the reference does not call: then the calls it makes instead); None if it moved
    no more anywhere. The ranks the same excess was loaded from (stored to) are named
    together."""
    mine, ref = _sent_by(learner, rank), _sent_by(reference, rank)
    instead = _instead(ref, mine)
    said: dict[tuple[str, str], list[Way]] = {}
    for way, got in mine.items():
        if got.bytes > ref.get(way, _Sent()).bytes:
            to_ranks = way[0] in ACCESS  # the same excess loaded from several ranks: said once
            text = _one((way[0], "{to}") if to_ranks else way, got, ref.get(way, _Sent()), algo,
                        instead)
            said.setdefault(text, []).append(way)
    if not said:
        return None
    parts = [(en.replace("{to}", _peers(ways)[0]), zh.replace("{to}", _peers(ways)[1]))
             if "{to}" in en else (en, zh) for (en, zh), ways in said.items()]
    total = sum(v.bytes for v in ref.values())
    moves = any(k[0] in ACCESS for k in (*mine, *ref))
    verb, verb_zh = ("moves", "搬运") if moves else ("sends", "发送")
    return (f"on the same inputs {algo[0]}'s rank {rank} {verb} {total} bytes; yours "
            + ("" if moves else "sends ") + "; ".join(en for en, _ in parts),
            f"在同样的输入上，{algo[1]}的 rank {rank} 共{verb_zh} {total} 字节；你的{verb_zh}："
            + "；".join(zh for _, zh in parts))
