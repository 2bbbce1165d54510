"""Trusted grading code for hierarchical-allreduce: inputs, the sum, the bounds per link class,
diagnosis. Rank r is local rank r % g on node r // g (g = ranks_per_node, M = world // g nodes)."""

from __future__ import annotations

import math
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.families import SumToAll
from cjudge.kit.pieces import contributions

#: exact inputs, the statement's example whose digits count the ranks, every rank the sum
ALL_REDUCE = SumToAll("numel")
make_inputs = ALL_REDUCE.make_inputs
example_inputs = ALL_REDUCE.example_inputs
expected = ALL_REDUCE.expected


def _bounds(case: Case) -> tuple[int, int]:
    """Bytes one rank may send (inside its node, to other nodes): 2(g−1) shards of at most ⌈N/g⌉
    elements, and 2(M−1) pieces of at most ⌈⌈N/g⌉/M⌉ elements: 2(g−1)/g·S and 2(M−1)/M·S/g
    with room for uneven splits."""
    g = case["ranks_per_node"]
    nodes = case.world // g
    shard = math.ceil(case["numel"] / g)
    return (2 * (g - 1) * shard * case.itemsize,
            2 * (nodes - 1) * math.ceil(shard / nodes) * case.itemsize)


def bytes_bound(case: Case) -> int:
    """Both levels together: 2(g−1)/g·S inside the node plus 2(M−1)/M·S/g across nodes."""
    return sum(_bounds(case))


def check_traffic(case: Case, calls: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Each rank's bytes per link class (peer on its own node or not) against its bound: None,
    or why not (the judge prefixes "correct, but"), the NIC first, the worst rank of the class."""
    g = case["ranks_per_node"]
    intra_bound, inter_bound = _bounds(case)
    intra, inter = [0] * case.world, [0] * case.world
    for call in calls:
        if call["op"] == "send" and call["peer"] is not None:
            same = call["rank"] // g == call["peer"] // g
            (intra if same else inter)[call["rank"]] += call["bytes"]
    for sent, bound, what, what_zh, formula in (
            (inter, inter_bound, "to other nodes (inter-node link: its NIC)",
             "经节点间链路（网卡）向其他节点", "2(M−1)/M·S/g"),
            (intra, intra_bound, "inside its node (intra-node link: NVLink)",
             "经节点内链路（NVLink）在本节点内", "2(g−1)/g·S")):
        worst = max(range(case.world), key=lambda r: sent[r] - bound)
        if sent[worst] > bound:
            node = worst // g
            return (f"rank {worst} (node {node}) sent {sent[worst]} bytes {what}; "
                    f"the bound is {bound} bytes ({formula} with g = {g} ranks per node, "
                    f"M = {case.world // g} nodes)",
                    f"rank {worst}（节点 {node}）{what_zh}发送了 {sent[worst]} 字节；"
                    f"上限为 {bound} 字节（{formula}，每节点 g = {g} 个 rank，M = {case.world // g} 个节点）")
    return None


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the element's shard, and which nodes or ranks its sum lacks or doubles."""
    g, numel = case["ranks_per_node"], case["numel"]
    nodes = case.world // g
    shard = next(i for i in range(g) if index < (i + 1) * numel // g)
    where = f"shard {shard} (elements {shard * numel // g}..{(shard + 1) * numel // g - 1})"
    where_zh = f"第 {shard} 个分片（元素 {shard * numel // g}..{(shard + 1) * numel // g - 1}）"
    parts = [i["data"][index] for i in inputs]
    total = math.fsum(parts)
    if got == parts[rank] and got != total:
        return (f"the element ({where}) still holds this rank's own input: it was never reduced "
                "or never gathered", f"该元素（{where_zh}）仍是本 rank 的输入：没有归约或没有收集")
    for mask in range(1, (1 << nodes) - 1):  # the sum of some nodes only: the step across failed
        have = [k for k in range(nodes) if mask >> k & 1]
        if got == math.fsum(parts[k * g + i] for k in have for i in range(g)):
            lack = ", ".join(str(k) for k in range(nodes) if k not in have)
            return (f"{where} holds the sum of node(s) {', '.join(map(str, have))} only: node(s) "
                    f"{lack} never reached it; the all-reduce across nodes must combine the same "
                    "shard from every node (ranks with the same local index)",
                    f"{where_zh}只有节点 {', '.join(map(str, have))} 的和，缺少节点 {lack}；"
                    "跨节点 all-reduce 必须把各节点的同一分片相加（本地编号相同的 rank）")
    for mask in range(1, (1 << g) - 1):  # some local ranks missing on every node: step 1 failed
        locals_lacking = [i for i in range(g) if mask >> i & 1]
        if got == math.fsum(x for r, x in enumerate(parts) if r % g not in locals_lacking):
            names = ", ".join(map(str, locals_lacking))
            return (f"{where} lacks local rank(s) {names} of every node: the sum sent across the "
                    "nodes was not the shard the reduce-scatter inside the node had finished",
                    f"{where_zh}缺少每个节点上本地 rank {names} 的贡献：跨节点发送的不是节点内 "
                    "reduce-scatter 已经归约完成的那个分片")
    return contributions(got, parts, where, where_zh)
