"""Trusted grading code for zero1-step: the step's inputs, the updated parameters and momentum
shards, the bound, and which part of the step a wrong element skipped."""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import refined

#: the bits the update adds to an input's: a sum of up to 8 gradients (3), beta (3), the two
#: additions (2) and a spare; the inputs' low bits stop short of them (``pieces.refined``)
HEADROOM = 9


def _values(count: int, dtype: str, rng: random.Random) -> list[float]:
    """Multiples of 1/16 below 4 in magnitude with low bits that no narrower float holds: with
    n and lr powers of two, every step of the update is exact in the case's dtype."""
    return refined([rng.randint(-64, 64) / 16 for _ in range(count)], 1 / 16, 7, HEADROOM, dtype,
                   rng)


def _tensor(data: list[float], dtype: str) -> dict[str, Any]:
    return {"shape": [len(data)], "dtype": dtype, "data": data}


def _call(param: list[float], grads: list[list[float]], moments: list[list[float]], lr: float,
          beta: float, dtype: str) -> list[dict[str, Any]]:
    return [{"call": [_tensor(list(param), dtype), _tensor(g, dtype), _tensor(m, dtype), lr, beta]}
            for g, m in zip(grads, moments, strict=True)]


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """The same parameters on every rank, each rank's own gradient of them, its momentum shard
    (N/n elements), and the step's lr and beta."""
    numel, dtype = case["numel"], case.dtype
    if numel % case.world:
        raise ValueError(f"numel = {numel} is not a multiple of the world size {case.world}")
    lr, beta = rng.choice([0.125, 0.25, 0.5]), rng.choice([0.5, 0.75, 0.875])
    param = _values(numel, dtype, rng)
    grads = [_values(numel, dtype, rng) for _ in range(case.world)]
    moments = [_values(numel // case.world, dtype, rng) for _ in range(case.world)]
    return _call(param, grads, moments, lr, beta, dtype)


def example_inputs(case: Case) -> list[dict[str, Any]]:
    """The statement's example (2 ranks, N = 4, lr = beta = 1/2)."""
    return _call([1.0, 2.0, 3.0, 4.0], [[2.0, 4.0, 6.0, 8.0], [4.0, 0.0, 2.0, -2.0]],
                 [[1.0, -1.0], [0.0, 2.0]], 0.5, 0.5, case.dtype)


def _step(inputs: list[dict[str, Any]]) -> tuple[list[float], list[list[float]], dict[str, list[float]]]:
    """The new parameters, each rank's new momentum shard, and the alternatives a mistake gives:
    the sum instead of the mean, no momentum, the old momentum, each element's old value."""
    world = len(inputs)
    param, _, _, lr, beta = inputs[0]["call"]
    grads = [i["call"][1]["data"] for i in inputs]
    moments = [m for i in inputs for m in i["call"][2]["data"]]  # the shards, in rank order
    sums = [math.fsum(col) for col in zip(*grads, strict=True)]
    new_m = [beta * m + s / world for m, s in zip(moments, sums, strict=True)]
    new_p = [p - lr * m for p, m in zip(param["data"], new_m, strict=True)]
    shard = len(new_p) // world
    other = {
        "sum": [p - lr * (beta * m + s) for p, m, s in zip(param["data"], moments, sums,
                                                             strict=True)],
        "no_momentum": [p - lr * s / world for p, s in zip(param["data"], sums, strict=True)],
        "old": list(param["data"]),
        "old_momentum": [p - lr * m for p, m in zip(param["data"], moments, strict=True)],
        "sum_m": [beta * m + s for m, s in zip(moments, sums, strict=True)],
        "old_m": moments,
    }
    return new_p, [new_m[r * shard:(r + 1) * shard] for r in range(world)], other


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every rank: the updated parameters (all N) and its own updated momentum shard (N/n)."""
    param, moments, _ = _step(inputs)
    dtype = case.dtype
    return [{"tuple": [_tensor(param, dtype), _tensor(m, dtype)]} for m in moments]


def bytes_bound(case: Case) -> int:
    """An all-reduce's volume, 2(n−1)/n·G: a reduce-scatter and an all-gather of the N
    gradients' and parameters' shards, (n−1)·N/n elements each."""
    return 2 * (case.world - 1) * (case["numel"] // case.world) * case.itemsize


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: object, path: str = "") -> tuple[str, str] | None:
    """Say which part of the step the element skipped: the all-gather (another rank's shard
    still old), the mean (the sum), the momentum (or its update, before the step), the update
    itself."""
    if path not in ("[0]", "[1]") or not isinstance(got, (int, float)):
        return None
    shard = case["numel"] // case.world
    param, moments, other = _step(inputs)
    if path == "[1]":
        i = rank * shard + index
        want = moments[rank][index]
        if _close(got, other["sum_m"][i]) and not _close(got, want):
            return ("the momentum took the sum of the gradients; the step uses their mean: divide "
                    f"the reduce-scattered shard by n = {case.world}",
                    f"动量用了梯度之和；更新要用平均值：把 reduce-scatter 得到的分片除以 n = {case.world}")
        if _close(got, other["old_m"][i]) and not _close(got, want):
            return ("the momentum shard is unchanged: m ← beta·m + g (g: the mean gradient of "
                    "this rank's shard), and return the new one",
                    "动量分片没有变化：m ← beta·m + g（g：本 rank 分片的平均梯度），并返回新的动量")
        return None
    owner = index // shard
    if owner >= case.world:
        return None
    where = f"parameter {index} (rank {owner}'s shard)"
    where_zh = f"参数 {index}（rank {owner} 的分片）"
    if _close(got, other["old"][index]) and not _close(got, param[index]):
        if owner != rank:
            return (f"{where} still holds its old value: rank {owner} updated it, but this rank "
                    "never received it; all-gather the updated shards",
                    f"{where_zh}仍是旧值：rank {owner} 更新了它，但本 rank 没有收到；"
                    "要 all-gather 更新后的分片")
        return (f"{where} is this rank's own and still holds its old value: update it, "
                "p ← p − lr·m", f"{where_zh}属于本 rank，却仍是旧值：要更新它，p ← p − lr·m")
    if _close(got, other["sum"][index]) and not _close(got, param[index]):
        return (f"{where} moved by the sum of the gradients; the step uses their mean: divide the "
                f"reduce-scattered shard by n = {case.world}",
                f"{where_zh}按梯度之和移动了；更新要用平均值：把 reduce-scatter 得到的分片除以 "
                f"n = {case.world}")
    if _close(got, other["old_momentum"][index]) and not _close(got, param[index]):
        return (f"{where} moved by lr times the momentum as it was before this step: update the "
                "momentum first, m ← beta·m + g, then step with the new one, p ← p − lr·m",
                f"{where_zh}按 lr 乘以本步更新之前的动量移动了：要先更新动量，m ← beta·m + g，"
                "再用新的动量更新参数，p ← p − lr·m")
    if _close(got, other["no_momentum"][index]) and not _close(got, param[index]):
        if owner != rank:
            return (f"{where} moved by lr·g alone: its momentum lives on rank {owner}, not here; "
                    "each rank keeps the momentum of its own shard only, updates that shard, and "
                    "all-gathers the parameters",
                    f"{where_zh}只按 lr·g 移动：它的动量在 rank {owner} 上，不在本 rank；每个 "
                    "rank 只保存并更新自己分片的动量，再 all-gather 参数")
        return (f"{where} moved by lr·g alone: the momentum is missing, m ← beta·m + g first",
                f"{where_zh}只按 lr·g 移动：缺少动量，先算 m ← beta·m + g")
    return None


def diagnose_shape(case: Case, rank: int, shape: list[int], path: str) -> tuple[str, str] | None:
    """A momentum of all N parameters: the state ZeRO shards."""
    numel = case["numel"]
    if path != "[1]" or shape != [numel] or case.world == 1:
        return None
    return (f"a momentum of all N = {numel} parameters; each rank keeps the momentum of its own "
            f"shard only, N/n = {numel // case.world} elements: that is the memory ZeRO saves",
            f"这是全部 N = {numel} 个参数的动量；每个 rank 只保存自己分片的动量，即 N/n = "
            f"{numel // case.world} 个元素：这正是 ZeRO 省下的内存")
