"""Megatron's MLP for the tensor-parallel graders: y = gelu(x·W1)·W2, W1 split by columns and
W2 by rows, in exact sums."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from .. import special


def gelu(v: float) -> float:
    """GELU as ``torch.nn.functional.gelu`` computes it by default: v·Φ(v)."""
    return 0.5 * v * (1 + special.erf(v / math.sqrt(2)))


def matrix(t: dict) -> list[list[float]]:
    """A 2-D tensor's rows."""
    cols = t["shape"][1]
    return [t["data"][i:i + cols] for i in range(0, len(t["data"]), cols)]


def tensor2d(rows: list[list[float]], dtype: str) -> dict:
    """Rows as a 2-D tensor (``protocol.TensorData``)."""
    return {"shape": [len(rows), len(rows[0]) if rows else 0], "dtype": dtype,
            "data": [v for row in rows for v in row]}


def mlp_shards(hidden: int, ffn: int, world: int, dtype: str,
               rng: random.Random) -> list[tuple[dict, dict]]:
    """Per rank, its shards of W1 (hidden × ffn, by columns: hidden × ffn/n) and of W2 (ffn ×
    hidden, by rows: ffn/n × hidden), multiples of 1/8 below 1 in magnitude."""
    if ffn % world:
        raise ValueError(f"ffn = {ffn} is not a multiple of the world size {world}")
    part = ffn // world
    return [(tensor2d([[rng.randint(-8, 8) / 8 for _ in range(part)] for _ in range(hidden)], dtype),
             tensor2d([[rng.randint(-8, 8) / 8 for _ in range(hidden)] for _ in range(part)], dtype))
            for _ in range(world)]


def mlp_partial(x: list[list[float]], w1: dict, w2: dict,
                act: Callable[[float], float] = gelu) -> list[list[float]]:
    """One rank's partial output act(x·W1_r)·W2_r, in exact sums before one rounding."""
    a, b = matrix(w1), matrix(w2)
    h = [[act(math.fsum(xi * a[k][j] for k, xi in enumerate(row))) for j in range(len(b))]
         for row in x]
    return [[math.fsum(hk * b[k][j] for k, hk in enumerate(row)) for j in range(len(b[0]))]
            for row in h]


def mlp_output(x: list[list[float]], shards: list[tuple[dict, dict]],
               act: Callable[[float], float] = gelu) -> list[list[float]]:
    """y = act(x·W1)·W2: the sum of every rank's partial output."""
    partials = [mlp_partial(x, w1, w2, act) for w1, w2 in shards]
    return [[math.fsum(col) for col in zip(*rows, strict=True)]
            for rows in zip(*partials, strict=True)]
