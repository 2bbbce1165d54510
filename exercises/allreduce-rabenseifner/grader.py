"""Trusted grading code for allreduce-rabenseifner: inputs, the sum, bound, diagnosis."""

from __future__ import annotations

import math
import random

#: multiples of 1/16 below 256 in magnitude: any sum of up to 8 is exact in float32 in any order
SCALE = 16
LIMIT = 4096


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's 1-D tensor of N exact values."""
    n = int(params["numel"])
    return [{"shape": [n], "dtype": params["dtype"],
             "data": [rng.randint(-LIMIT, LIMIT) / SCALE for _ in range(n)]} for _ in range(world)]


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Every rank ends with the elementwise sum, in place."""
    total = [math.fsum(col) for col in zip(*(i["data"] for i in inputs), strict=True)]
    return [{"shape": list(i["shape"]), "dtype": i["dtype"], "data": total} for i in inputs]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """The ring's volume with room for uneven blocks: n−1 blocks of at most ⌈N/n⌉ elements in
    each phase."""
    return 2 * (world - 1) * math.ceil(int(params["numel"]) / world) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the block of the index, and the ranks whose contribution is missing or doubled."""
    numel = int(params["numel"])
    block = next(b for b in range(world) if index < (b + 1) * numel // world)
    parts = [i["data"][index] for i in inputs]
    if got == parts[rank] and got != math.fsum(parts):
        return (f"the element (block {block}, reduced on rank {block}) still holds this rank's "
                "own input: it was never reduced or never gathered",
                f"该元素（第 {block} 块，在 rank {block} 上归约）仍是本 rank 的输入：没有归约或没有收集")
    return contributions(got, parts, f"block {block} (reduced on rank {block})",
                         f"第 {block} 块（在 rank {block} 上归约）")


def contributions(got: float, parts: list[float], what: str, what_zh: str) -> tuple[str, str] | None:
    """Which ranks' ``parts`` are missing from ``got`` (the fewest that explain it), or which
    one is counted twice; None if no such set explains it."""
    world = len(parts)
    for mask in sorted(range(1, (1 << world) - 1), key=lambda k: bin(k).count("1")):
        missing = [r for r in range(world) if mask >> r & 1]
        if got == math.fsum(x for r, x in enumerate(parts) if r not in missing):
            names = ", ".join(map(str, missing))
            return (f"{what} lacks the contribution of rank(s) {names}",
                    f"{what_zh}缺少 rank {names} 的贡献")
    for r, x in enumerate(parts):
        if x != 0 and got == math.fsum(parts) + x:
            return (f"{what} counts rank {r}'s contribution ({x:g}) twice",
                    f"{what_zh}把 rank {r} 的贡献（{x:g}）加了两次")
    return None
