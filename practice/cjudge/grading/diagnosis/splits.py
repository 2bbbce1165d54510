"""An all_to_all whose split sizes depart from the reference's at the same call: which rank it
sends how many elements where the reference sends another number, and whether the learner's
``input_split_sizes`` are the reference's ``output_split_sizes`` (the two swapped).

The switch records each all_to_all request's input bytes per member (``Request.splits``); what
a rank *receives* from each member is the other members' splits for it in the same collective.
"""

from __future__ import annotations

from ...contract.units import plural
from ...switch.reduce import itemsize
from ...switch.trace import Request, SwitchTrace

Splits = tuple[int, ...]
#: torch's parameter order, said when the learner swapped the two split arguments
ORDER = "all_to_all_single(output, input, output_split_sizes, input_split_sizes)"


def elements(req: Request) -> Splits | None:
    """The request's split sizes in elements, one per member (group order); None if unrecorded."""
    splits = req.get("splits")
    if splits is None:
        return None
    unit = itemsize(req["dtype"])
    return tuple(s // unit for s in splits)


def _received(trace: SwitchTrace, request: int) -> tuple[Splits | None, list[int]]:
    """What the request's rank receives from each member of its collective, in elements (each
    member's split for it; None unless every member's are recorded), and the members."""
    by_id = {r["id"]: r for r in trace["requests"]}
    coll = next((c for c in trace["collectives"] if request in c["requests"]), None)
    if request not in by_id or coll is None:
        return None, []
    me = coll["ranks"].index(by_id[request]["rank"])
    got = [elements(by_id[rid]) for rid in coll["requests"]]
    if any(g is None or len(g) <= me for g in got):
        return None, coll["ranks"]
    return tuple(g[me] for g in got if g is not None), coll["ranks"]


def departure(mine: Splits, want: Splits, reference: SwitchTrace, request: int, api: str,
              algo: tuple[str, str]) -> tuple[str, str]:
    """How a call's split sizes ``mine`` depart from those of the reference's call ``request``
    (``want``; both in elements, one per member)."""
    want_recv, members = _received(reference, request)
    a, a_zh = algo
    # the first member sent a different count (the switch gives every member one)
    p = next((i for i, (g, w) in enumerate(zip(mine, want, strict=False)) if g != w), 0)
    peer, k, m = members[p] if p < len(members) else p, mine[p], want[p]
    sends = f"it sends rank {peer} {plural(k, 'element')}"
    sends_zh = f"它发给 rank {peer} {k} 个元素"
    where, where_zh = f"where {a} sends {m}", f"而{a_zh}发 {m} 个"
    if mine == want_recv and api.endswith("all_to_all_single"):
        return (f"its input_split_sizes and output_split_sizes are swapped: {sends}, the number "
                f"rank {peer} sends it, {where}; the order is {ORDER}",
                f"它的 input_split_sizes 与 output_split_sizes 传反了：{sends_zh}（正是 rank "
                f"{peer} 发给它的数量），{where_zh}；参数顺序是 {ORDER}")
    if api.endswith("all_to_all_single"):
        return (f"its input_split_sizes differ: {sends} {where}",
                f"它的 input_split_sizes 不对：{sends_zh}，{where_zh}")
    return f"{sends} {where}", f"{sends_zh}，{where_zh}"
