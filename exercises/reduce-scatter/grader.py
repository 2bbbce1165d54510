"""Trusted grading code for reduce-scatter: inputs, each rank's summed shard, bound, diagnosis."""

from __future__ import annotations

import math
import random

#: multiples of 1/16 below 256 in magnitude: any sum of up to 8 is exact in float32 in any order
SCALE = 16
LIMIT = 4096


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's 1-D tensor of n·m exact values."""
    numel = world * int(params["m"])
    return [{"shape": [numel], "dtype": params["dtype"],
             "data": [rng.randint(-LIMIT, LIMIT) / SCALE for _ in range(numel)]}
            for _ in range(world)]


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Rank r gets shard r of the elementwise sum: elements r·m … r·m+m−1."""
    m = int(params["m"])
    total = [math.fsum(col) for col in zip(*(i["data"] for i in inputs), strict=True)]
    return [{"shape": [m], "dtype": params["dtype"], "data": total[r * m:(r + 1) * m]}
            for r in range(world)]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """The ring: n−1 shards of m elements per rank."""
    return (world - 1) * int(params["m"]) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the shard the value belongs to, or the rank whose contribution is missing or doubled."""
    m = int(params["m"])
    at = rank * m + index
    for shard in range(world):
        if shard != rank and got == math.fsum(i["data"][shard * m + index] for i in inputs):
            return (f"this is element {index} of shard {shard}'s sum: rank {rank} must return "
                    f"shard {rank} (elements {rank * m}…{rank * m + m - 1} of the sum)",
                    f"这是第 {shard} 段之和的第 {index} 个元素：rank {rank} 应返回第 {rank} 段"
                    f"（和的第 {rank * m}…{rank * m + m - 1} 个元素）")
    return contributions(got, [i["data"][at] for i in inputs], f"shard {rank}", f"第 {rank} 段")


def contributions(got: float, parts: list[float], what: str, what_zh: str) -> tuple[str, str] | None:
    """Which ranks' ``parts`` are missing from ``got`` (the fewest that explain it), or which
    one is counted twice; None if no such set explains it."""
    world = len(parts)
    for mask in sorted(range(1, 1 << world), key=lambda k: bin(k).count("1")):
        missing = [r for r in range(world) if mask >> r & 1]
        if len(missing) == world:
            break
        if got == math.fsum(x for r, x in enumerate(parts) if r not in missing):
            names = ", ".join(map(str, missing))
            return (f"{what} lacks the contribution of rank(s) {names}",
                    f"{what_zh}缺少 rank {names} 的贡献")
    for r, x in enumerate(parts):
        if x != 0 and got == math.fsum(parts) + x:
            return (f"{what} counts rank {r}'s contribution ({x:g}) twice",
                    f"{what_zh}把 rank {r} 的贡献（{x:g}）加了两次")
    return None
