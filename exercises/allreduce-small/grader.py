"""Trusted grading code for allreduce-small: inputs, the sum, bound, diagnosis."""

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
    """⌈log₂n⌉ whole tensors per rank: log₂p exchanges, plus the result sent back to a folded
    rank when n is not a power of two p."""
    return math.ceil(math.log2(world)) * int(params["numel"]) * itemsize


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say whether the rank kept its own input, or whose contributions are missing or doubled."""
    parts = [i["data"][index] for i in inputs]
    p = 1 << (world.bit_length() - 1)
    if got == parts[rank] and got != math.fsum(parts):
        extra = (f" (rank {rank} is one of the n − {p} ranks folded into the first {p}: "
                 f"it must get the result back from rank {rank - p})") if rank >= p else ""
        extra_zh = (f"（rank {rank} 是被折叠进前 {p} 个 rank 的多余 rank：它必须从 rank "
                    f"{rank - p} 收回结果）") if rank >= p else ""
        return (f"the element still holds this rank's own input{extra}",
                f"该元素仍是本 rank 的输入{extra_zh}")
    return contributions(got, parts, "the element", "该元素")


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
