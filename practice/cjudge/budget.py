"""``over_budget`` explained by the trace: what the rank over its bound sent, call by call.

The switch's trace gives each call a rank made in the graded function: its line, its kind, its
destination and, for a message, its payload. From them the judge says where the bytes went (to
which ranks, from which lines) and what went twice (the same values to the same rank). What a
receiver needed is the exercise's to say, in its own terms: a grader may define

    needs(params, world, inputs, rank, calls) -> (english, chinese) | None

(``calls``: the rank's graded calls ``protocol.TraceEvent``, in order), e.g. "rank p needs
only block p of rank 0's row (1 element)".
"""

from __future__ import annotations

from .switch.trace import Message, Request, SwitchTrace
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
            calls = kind if len(reqs) == 1 else f"{len(reqs)} {kind} calls"
            parts.append(f"{at}{calls}, {plural(elements, 'element')}")
            parts_zh.append(f"{at_zh}{len(reqs)} 次 {kind}，{elements} 个元素")
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
            at = [str(lines[m["send"]]) for m in again]
            count = plural(again[0]["bytes"] // size, "element")
            times = "twice" if len(again) == 2 else f"{len(again)} times"
            return (f"it sent the same {count} to rank {dst} {times} (lines {', '.join(at)})",
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
