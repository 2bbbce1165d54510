"""Trusted grading code for ddp-overlap: each rank's gradients (yielded by the judge's
backward, last layer first), their means, the buckets the statement's packing makes, and a
diagnosis of a wrong mean (a sum, a rank's own gradient, another layer's)."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import exact_inputs, item_of


def buckets(case: Case, past: bool = False) -> list[int]:
    """The layers in each bucket, in the order backward yields them: a gradient joins the open
    bucket, which is reduced once it holds at least bucket_bytes (``past``: only once it holds
    more, a mistake); the rest after the last."""
    layer_bytes = case["numel"] * case.itemsize
    per = case["bucket_bytes"] // layer_bytes + 1 if past else \
        max(1, -(-case["bucket_bytes"] // layer_bytes))
    layers = case["layers"]
    return [min(per, layers - start) for start in range(0, layers, per)]


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Rank r: the judge's backward, yielding layer L−1's gradient first, then L−2's, …, layer
    0's, each `numel` exact values (``pieces.exact_inputs``); n_layers and bucket_bytes."""
    layers, numel, dtype = case["layers"], case["numel"], case.dtype
    assert len(buckets(case)) == case["buckets"] and buckets(case)[-1] == case["last"]
    calls = []
    for _ in range(case.world):
        grads = exact_inputs(layers, numel, dtype, rng)  # layer order
        backward = {"fn": "gradients", "params": {
            "items": grads[::-1], "count": layers, "dtype": dtype, "unit": numel,
            "label": "backward"}}
        calls.append({"call": [backward, layers, case["bucket_bytes"]]})
    return calls


def _grads(inputs: list[dict[str, Any]], rank: int) -> list[list[float]]:
    """Rank ``rank``'s gradients in layer order."""
    return [g["data"] for g in inputs[rank]["call"][0]["params"]["items"][::-1]]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every rank returns the L mean gradients in layer order (index l: layer l)."""
    per_rank = [_grads(inputs, r) for r in range(case.world)]
    means = [{"shape": [case["numel"]], "dtype": case.dtype,
              "data": [math.fsum(col) / case.world
                       for col in zip(*(g[layer] for g in per_rank), strict=True)]}
             for layer in range(case["layers"])]
    return [[dict(m) for m in means] for _ in range(case.world)]


def bytes_bound(case: Case) -> int:
    """The ring all-reduce's volume of all the gradients: 2(n − 1)/n · L · numel elements (the
    gradients come from backward, so the dtype says their element size)."""
    total = case["layers"] * case["numel"] * case.itemsize
    return 2 * (case.world - 1) * total // case.world


def check_traffic(case: Case, calls: list[dict[str, Any]]) -> tuple[str, str] | None:
    """One all_reduce per bucket, in order: as many calls as buckets, each of its bucket's
    elements."""
    want = [k * case["numel"] for k in buckets(case)]
    for rank in range(case.world):
        got = [c["count"] for c in calls if c["rank"] == rank and c["op"] == "all_reduce"]
        if got != want:
            past = got == [k * case["numel"] for k in buckets(case, past=True)]
            why, why_zh = (f"; yours close only once they hold more than {case['bucket_bytes']}"
                           " bytes: reduce a bucket as soon as it holds at least that many (>=, "
                           "not >)",
                           f"；你的桶要超过 {case['bucket_bytes']} 字节才发出：桶一旦装满至少这么多"
                           "字节就应立即 all_reduce（用 >=，不是 >）") if past else ("", "")
            cost, cost_zh = _cost(len(got), len(want))
            return (f"rank {rank}'s all_reduce calls carry {' + '.join(map(str, got))} "
                    f"elements; the buckets of at least {case['bucket_bytes']} bytes, filled in "
                    f"the order backward yields the gradients, hold {' + '.join(map(str, want))}"
                    f": one all_reduce per bucket{cost}{why}",
                    f"rank {rank} 的 all_reduce 调用分别携带 {' + '.join(map(str, got))} 个元素；"
                    f"按 backward 产出梯度的顺序装桶、每桶至少 {case['bucket_bytes']} 字节，"
                    f"应为 {' + '.join(map(str, want))}：每个桶一次 all_reduce{cost_zh}{why_zh}")
    return None


def _cost(made: int, due: int) -> tuple[str, str]:
    """What ``made`` all_reduce calls cost against the buckets' ``due``: more calls pay more
    latencies; fewer, larger buckets start later, so less of the reduction overlaps backward."""
    if made > due:
        return " (each call pays 2(n − 1) α)", "（每次调用都要付 2(n − 1) 个 α）"
    if made < due:
        return (" (fewer, larger buckets start their all_reduce later, so less of it overlaps "
                "backward)", "（桶更少更大，all_reduce 开始得更晚，与 backward 重叠的部分更少）")
    return "", ""


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """What a wrong element of the returned layer ``path`` ("[l]") is: the sum over the ranks,
    this rank's own gradient, or another layer's mean."""
    layer = item_of(path)
    if layer is None:
        return None
    per_rank = [_grads(inputs, r) for r in range(case.world)]
    if layer >= len(per_rank[0]):
        return None

    def mean(at: int) -> float:
        return math.fsum(g[at][index] for g in per_rank) / case.world

    where, where_zh = f"layer {layer}'s gradient", f"第 {layer} 层的梯度"
    if case.world > 1 and got == mean(layer) * case.world:
        return (f"{where} holds the sum over the {case.world} ranks: divide by the world size for the "
                "mean", f"{where_zh}是 {case.world} 个 rank 的和：要除以 world size 得到平均值")
    if case.world > 1 and got == per_rank[rank][layer][index]:
        return (f"{where} is still this rank's own: its bucket's all-reduced result never came "
                "back into it", f"{where_zh}仍是本 rank 自己的：所在桶 all-reduce 的结果没有写回")
    other = next((k for k in range(len(per_rank[0])) if k != layer and got == mean(k)), None)
    if other is not None:
        return (f"{where} is layer {other}'s mean: return the gradients in layer order (index l "
                "is layer l; backward yields layer L − 1 first)",
                f"{where_zh}是第 {other} 层的平均值：按层的顺序返回（下标 l 是第 l 层；backward "
                "先产出第 L − 1 层）")
    return None
