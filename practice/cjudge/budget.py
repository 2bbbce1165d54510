"""``over_budget`` explained by the trace: what the rank over its bound sent, call by call.

The switch's trace gives each call a rank made in the graded function: its line, its kind, its
destination and, for a message, its payload. From them the judge says where the bytes went (to
which ranks, from which lines) and what went twice (the same values to the same rank). What a
receiver needed is the exercise's to say, in its own terms: a grader may define

    needs(case, inputs, rank, calls) -> (english, chinese) | None

(``calls``: the rank's graded calls ``protocol.TraceEvent``, in order), e.g. "rank p needs
only block p of rank 0's row (1 element)".
"""

from __future__ import annotations

from .switch.reduce import DTYPES
from .switch.trace import Message, Request, SwitchTrace, recorded_values
from .units import plural


def ranks_text(ranks: list[int], zh: bool = False) -> str:
    """``rank 2``, ``ranks 1, 2, 3`` (Chinese: ``rank 1、2、3``)."""
    if zh or len(ranks) == 1:
        return f"rank {'、'.join(map(str, ranks))}"
    return f"ranks {', '.join(map(str, ranks))}"


def _where(trace: SwitchTrace, rank: int, size: int) -> tuple[str, str]:
    """The rank's sending calls grouped by line and kind: where its bytes went."""
    groups: dict[tuple[int | None, str], list[Request]] = {}
    for req in trace["requests"]:
        if req["graded"] and req["rank"] == rank and (req["sent"] or req["kind"] == "send"):
            groups.setdefault((req["line"], req["kind"]), []).append(req)
    parts, parts_zh = [], []
    for (line, kind), reqs in groups.items():
        at, at_zh = (f"line {line}: ", f"第 {line} 行：") if line else ("", "")
        elements = sum(r["sent"] for r in reqs) // size
        if kind == "send":
            to = sorted({r["peer"] for r in reqs if r["peer"] is not None})
            each = {r["sent"] // size for r in reqs}
            if len(reqs) == 1:
                amount, amount_zh = plural(elements, "element"), f"{elements} 个元素"
            elif len(each) == 1:
                amount, amount_zh = f"{plural(each.pop(), 'element')} each", \
                    f"每条 {reqs[0]['sent'] // size} 个元素"
            else:
                amount, amount_zh = f"{plural(elements, 'element')} in all", f"共 {elements} 个元素"
            parts.append(f"{at}{plural(len(reqs), 'message')} to {ranks_text(to)}, {amount}")
            parts_zh.append(f"{at_zh}向 {ranks_text(to, zh=True)} 发送 {len(reqs)} 条消息，"
                            f"{amount_zh}")
        else:
            api = reqs[0]["api"] or kind  # what the learner called: all_gather_into_tensor
            calls = api if len(reqs) == 1 else f"{len(reqs)} {api} calls"
            parts.append(f"{at}{calls}, {plural(elements, 'element')}")
            parts_zh.append(f"{at_zh}{len(reqs)} 次 {api}，{elements} 个元素")
    return "; ".join(parts), "；".join(parts_zh)


def _twice(trace: SwitchTrace, rank: int, size: int) -> tuple[str, str] | None:
    """The first payload the rank sent to one rank more than once (the same values again)."""
    lines = {r["id"]: r["line"] for r in trace["requests"]}
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
    count = sum(1 for r in trace["requests"]
                if r["graded"] and r["rank"] == rank and (r["sent"] or r["kind"] == "send"))
    where, where_zh = _where(trace, rank, size)
    en = (f"correct, but rank {rank} sent {sent} bytes in {plural(count, 'call')} ({where}); "
          f"its bound is {limit} bytes ({plural(limit // size, 'element')})")
    zh = (f"结果正确，但 rank {rank} 通过 {count} 次调用发送了 {sent} 字节（{where_zh}），"
          f"其上限为 {limit} 字节（{limit // size} 个元素）")
    for why in (_twice(trace, rank, size), needs):
        if why:
            en, zh = f"{en}. {why[0][0].upper()}{why[0][1:]}", f"{zh}。{why[1]}"
    return en, zh


class _Sent:
    """What a rank sent one way: bytes, elements, and their values where recorded."""

    def __init__(self) -> None:
        self.bytes, self.elements = 0, 0
        self.values: list[float | int] | None = []

    def add(self, nbytes: int, elements: int, got: list[float | int] | None) -> None:
        self.bytes, self.elements = self.bytes + nbytes, self.elements + elements
        self.values = self.values + got if self.values is not None and got is not None else None


def _sent_by(trace: SwitchTrace, rank: int) -> dict[str, _Sent]:
    """What ``rank`` sent, by where it went: ``"rank d"`` for its messages to d, a collective's
    name for its calls of it."""
    apis = {r["id"]: r["api"] or r["kind"] for r in trace["requests"]}
    units = {r["id"]: DTYPES[r["dtype"]][1] if r["dtype"] in DTYPES else 1
             for r in trace["requests"]}
    sent = {r["id"]: r["bytes"] for r in trace["requests"]}  # as sent: a message is charged
    out: dict[str, _Sent] = {}
    for m in sorted(trace["messages"], key=lambda m: m["send"]):
        if m["src"] == rank and m["dst"] != rank and m["bytes"] and m["send"] in apis:
            out.setdefault(f"rank {m['dst']}", _Sent()).add(
                m["bytes"], sent[m["send"]] // units[m["send"]], recorded_values(m.get("data")))
    for req in trace["requests"]:
        if req["graded"] and req["rank"] == rank and req["kind"] not in ("send", "recv") and \
                req["sent"]:
            out.setdefault(apis[req["id"]], _Sent()).add(req["sent"], req["sent"] // units[req["id"]],
                                                          None)
    return out


def _one(key: str, got: _Sent, want: _Sent, algo: tuple[str, str]) -> tuple[str, str]:
    """One way the rank sent more than the reference, and why that is more."""
    to, to_zh = (f"to {key}", f"发给 {key}") if key.startswith("rank") else (f"in {key}", f"在 {key} 中")
    why, why_zh = "", ""
    if got.elements == want.elements:
        why = (f" (as many elements, {got.bytes // max(got.elements, 1)} bytes each where "
               f"{algo[0]}'s take {want.bytes // max(want.elements, 1)})")
        why_zh = (f"（元素个数相同，但每个 {got.bytes // max(got.elements, 1)} 字节，而{algo[1]}的"
                  f"每个 {want.bytes // max(want.elements, 1)} 字节）")
    elif got.values and want.values:
        wanted = set(want.values)
        unneeded = sum(1 for v in got.values if v not in wanted)
        if unneeded:
            why = f" ({unneeded} of your {got.elements} elements are values {algo[0]} never sends there)"
            why_zh = f"（你的 {got.elements} 个元素中有 {unneeded} 个是{algo[1]}从不发往那里的）"
    return (f"{got.bytes} bytes {to} where {algo[0]} sends {want.bytes}{why}",
            f"{to_zh} {got.bytes} 字节，而{algo[1]}发送 {want.bytes} 字节{why_zh}")


def against_reference(learner: SwitchTrace, reference: SwitchTrace, rank: int,
                      algo: tuple[str, str]) -> tuple[str, str] | None:
    """Where ``rank`` sent more than the reference's same rank on the same inputs, and what its
    receivers did not need (elements the reference never sends them, or wider elements); None
    if it sent no more anywhere."""
    mine, ref = _sent_by(learner, rank), _sent_by(reference, rank)
    parts = [_one(k, got, ref.get(k, _Sent()), algo) for k, got in mine.items()
             if got.bytes > ref.get(k, _Sent()).bytes]
    if not parts:
        return None
    total = sum(v.bytes for v in ref.values())
    return (f"on the same inputs {algo[0]}'s rank {rank} sends {total} bytes; yours sends "
            + "; ".join(en for en, _ in parts),
            f"在同样的输入上，{algo[1]}的 rank {rank} 共发送 {total} 字节；你的发送："
            + "；".join(zh for _, zh in parts))
