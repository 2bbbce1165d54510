"""Trusted grading code for bucketed-allreduce: the gradients, their mean, the bound, the
bucket rule, and what a wrong element says about the learner's buckets."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import contributions, exact_inputs, mistaken_for
from cjudge.kit.where import call_at, first_other


def sizes_of(case: Case) -> list[int]:
    """Every gradient's element count, in list order."""
    if "sizes" in case.params:
        return [int(k) for k in case.params["sizes"]]
    return [case["numel"]] * case["count"]


def _shape(numel: int) -> list[int]:
    """Gradients come in shapes, not only flat: an even count of 4 or more as two rows."""
    return [2, numel // 2] if numel >= 4 and numel % 2 == 0 else [numel]


def greedy_buckets(sizes: list[int], itemsize: int, bucket_bytes: int,
                   reset: bool = True) -> list[list[int]]:
    """The statement's packing: the list in order; a gradient joins the open bucket if the
    bucket is empty or stays within bucket_bytes with it, else it opens the next one (without
    ``reset``, a learner's fault: the bytes held are not reset when a bucket opens)."""
    buckets: list[list[int]] = []
    held = 0
    for i, numel in enumerate(sizes):
        nbytes = numel * itemsize
        if buckets and held + nbytes <= bucket_bytes:
            buckets[-1].append(i)
            held += nbytes
        else:
            buckets.append([i])
            held = nbytes if reset else held + nbytes
    return buckets


def _buckets(case: Case) -> list[list[int]]:
    return greedy_buckets(sizes_of(case), case.itemsize, case["bucket_bytes"])


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Every rank's list of gradients (exact values, so a wrong element can be traced to the
    ranks it came from) and bucket_bytes."""
    sizes = sizes_of(case)
    if len(_buckets(case)) != case["buckets"]:  # the time bound is made from it
        raise ValueError(f"case parameter buckets = {case['buckets']}, but the greedy packing "
                         f"makes {len(_buckets(case))}")
    flat = exact_inputs(case.world, sum(sizes), case.dtype, rng)
    calls = []
    for rank in range(case.world):
        grads, at = [], 0
        for numel in sizes:
            data = flat[rank]["data"][at:at + numel]
            grads.append({"shape": _shape(numel), "dtype": case.dtype, "data": data})
            at += numel
        calls.append({"call": [grads, case["bucket_bytes"]]})
    return calls


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example, the sample case: rank r's gradients hold 10r, 10r + 1, … in
    list order, so gradient values are their rank and place and the means are 10(n−1)/2 + i."""
    sizes, calls = sizes_of(case), []
    for rank in range(case.world):
        grads, at = [], 0
        for numel in sizes:
            grads.append({"shape": _shape(numel), "dtype": case.dtype,
                          "data": [10.0 * rank + at + i for i in range(numel)]})
            at += numel
        calls.append({"call": [grads, case["bucket_bytes"]]})
    return calls


def _means(inputs: list[dict[str, Any]]) -> list[list[float]]:
    """Per gradient, the elementwise mean over ranks."""
    world = len(inputs)
    per_rank = [i["call"][0] for i in inputs]
    return [[math.fsum(col) / world for col in zip(*(g[k]["data"] for g in per_rank), strict=True)]
            for k in range(len(per_rank[0]))]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every rank's gradients, each replaced in place by its mean over the ranks."""
    grads = inputs[0]["call"][0]
    means = [{"shape": list(g["shape"]), "dtype": g["dtype"], "data": m}
             for g, m in zip(grads, _means(inputs), strict=True)]
    return [[dict(m) for m in means] for _ in range(case.world)]


def bytes_bound(case: Case) -> int:
    """Every gradient all-reduced once: 2(n−1)/n of their total bytes."""
    total = sum(sizes_of(case)) * case.itemsize
    return 2 * (case.world - 1) * total // case.world


def _counts(case: Case, reset: bool = True) -> list[int]:
    sizes = sizes_of(case)
    packed = greedy_buckets(sizes, case.itemsize, case["bucket_bytes"], reset)
    return [sum(sizes[i] for i in bucket) for bucket in packed]


def _never_reset(case: Case, got: list[int]) -> tuple[str, str]:
    """The cause when the calls' sizes are the packing's with the bytes held never reset."""
    if got != _counts(case, reset=False):
        return "", ""
    sent = " + ".join(map(str, got))
    return (f"; yours carry {sent} elements, what the packing makes when the bucket's count "
            "of bytes held is never reset when a bucket closes: after the first bucket every "
            "gradient opens its own",
            f"；你的调用分别携带 {sent} 个元素，这正是桶内字节计数在开新桶时从未清零的结果："
            "第一个桶之后每个梯度都单独成桶")


def _first_other(mine: list[dict[str, Any]], want: list[int]) -> tuple[str, str]:
    """Where a rank's calls first depart from the packing: the call, its line, both sizes."""
    i = first_other(mine, want)
    if i == len(mine):  # each call matches its bucket; the later buckets have none
        at, at_zh = call_at("all_reduce", i, mine[-1]["line"])
        return (f"; after {at}, bucket {i + 1} ({want[i]} elements) is never reduced",
                f"；在{at_zh}之后，第 {i + 1} 个桶（{want[i]} 个元素）从未归约")
    at, at_zh = call_at("all_reduce", i + 1, mine[i]["line"])
    held, held_zh = ((f"bucket {i + 1} holds {want[i]}", f"第 {i + 1} 个桶是 {want[i]} 个")
                     if i < len(want) else
                     (f"there is no bucket {i + 1}", f"不存在第 {i + 1} 个桶"))
    return (f"; the first to differ is {at}, of {mine[i]['count']} elements where {held}",
            f"；第一个不同的是{at_zh}，携带 {mine[i]['count']} 个元素，而{held_zh}")


def check_traffic(case: Case, calls: list[dict[str, Any]]) -> tuple[str, str] | None:
    """One all_reduce per bucket of the greedy packing: as many calls, of the buckets' sizes."""
    want = _counts(case)
    packing = " + ".join(map(str, want))
    for rank in range(case.world):
        mine = [c for c in calls if c["rank"] == rank and c["op"] == "all_reduce"]
        got = [c["count"] for c in mine]
        cause, cause_zh = _never_reset(case, got) if got != want else ("", "")
        if mine and got != want:
            at, at_zh = _first_other(mine, want)
            cause, cause_zh = at + cause, at_zh + cause_zh
        if len(got) != len(want):
            more = len(got) > len(want)
            why = ("every all_reduce pays 2(n−1) steps of latency α: more calls is slower" if more
                   else "a bucket holds at most bucket_bytes unless it is one gradient alone")
            why_zh = ("每次 all_reduce 都要付 2(n−1) 步延迟 α：调用越多越慢" if more
                      else "除非一个桶里只有一个梯度，否则桶不能超过 bucket_bytes")
            calls_en = f"{len(got)} all_reduce call" + ("" if len(got) == 1 else "s")
            return (f"rank {rank} made {calls_en}; the greedy packing of the "
                    f"{len(sizes_of(case))} gradients in order into buckets of at most "
                    f"{case['bucket_bytes']} bytes makes {len(want)} ({packing} elements) — "
                    f"{why}{cause}",
                    f"rank {rank} 调用了 {len(got)} 次 all_reduce；按顺序把 "
                    f"{len(sizes_of(case))} 个梯度贪心地装进不超过 {case['bucket_bytes']} "
                    f"字节的桶，应得 {len(want)} 个桶（{packing} 个元素）——{why_zh}{cause_zh}")
        if sorted(got) != sorted(want):
            sent = " + ".join(map(str, got))
            return (f"rank {rank}'s {len(got)} all_reduce calls carry {sent} elements; the greedy "
                    f"packing's buckets hold {packing}: fill each bucket while the next gradient "
                    f"still fits, in list order{cause}",
                    f"rank {rank} 的 {len(got)} 次 all_reduce 分别携带 {sent} 个元素；贪心装桶"
                    f"应为 {packing}：按列表顺序，只要下一个梯度还装得下就放进当前桶{cause_zh}")
    return None


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: object, path: str = "") -> tuple[str, str] | None:
    """Say what the element holds instead of the mean: the sum, this rank's own gradient, the
    mean divided twice, another gradient's element, or a sum lacking ranks."""
    if not path.startswith("[") or not isinstance(got, (int, float)):
        return None
    k = int(path[1:].split("]")[0])
    grads = [i["call"][0] for i in inputs]
    parts = [g[k]["data"][index] for g in grads]
    total, mean = math.fsum(parts), math.fsum(parts) / case.world
    where = f"gradient [{k}], element {index}"
    where_zh = f"梯度 [{k}] 的第 {index} 个元素"

    def close(a: float, b: float) -> bool:
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)

    if mistaken_for(got, total, mean):
        return (f"{where} holds the sum over the {case.world} ranks: divide by the world size for the "
                "mean", f"{where_zh}是 {case.world} 个 rank 的和：要除以 world size 才是平均值")
    if got == parts[rank] and not close(got, mean):
        return (f"{where} is still this rank's own gradient: the all-reduced bucket was never "
                "copied back into the gradient tensors",
                f"{where_zh}仍是本 rank 自己的梯度：all-reduce 之后的桶没有拷回梯度张量")
    if close(got, mean / case.world):
        return (f"{where} is the mean divided by {case.world} once more",
                f"{where_zh}多除了一次 {case.world}")
    for j, mean_j in enumerate(_means(inputs)):
        for i, value in enumerate(mean_j):
            if (j, i) != (k, index) and mistaken_for(got, value, mean):
                return (f"{where} holds the mean of gradient [{j}], element {i}: the bucket is "
                        "copied back at the wrong offsets",
                        f"{where_zh}是梯度 [{j}] 第 {i} 个元素的平均值：从桶拷回时偏移错了")
    return contributions(got * case.world, parts, where, where_zh)
