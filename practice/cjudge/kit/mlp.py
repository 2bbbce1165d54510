"""Megatron's MLP for the tensor-parallel graders: y = gelu(x·W1)·W2, W1 split by columns and
W2 by rows, in exact sums; a case's x and shards, and the shards read back from the inputs
(each rank's call is (x or its rows of x, W1_r, W2_r))."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from ..contract.protocol import TensorData
from ..exercise import special
from .case import Case
from .pieces import matrix, refined, tensor2d

#: the bits x·W1 adds to an element of x: a weight (4) and a sum of up to 8 (3); x's low bits
#: stop short of them, so x·W1 stays exact (``pieces.refined``)
X_HEADROOM = 7

#: a rank's shards of the weights: (W1_r, W2_r)
Shards = tuple[TensorData, TensorData]


def gelu(v: float) -> float:
    """GELU as ``torch.nn.functional.gelu`` computes it by default: v·Φ(v)."""
    return 0.5 * v * (1 + special.erf(v / math.sqrt(2)))


def mlp_shards(hidden: int, ffn: int, world: int, dtype: str,
               rng: random.Random) -> list[Shards]:
    """Per rank, its shards of W1 (hidden × ffn, by columns: hidden × ffn/n) and of W2 (ffn ×
    hidden, by rows: ffn/n × hidden), multiples of 1/8 below 1 in magnitude."""
    if ffn % world:
        raise ValueError(f"ffn = {ffn} is not a multiple of the world size {world}")
    part = ffn // world
    return [(tensor2d([[rng.randint(-8, 8) / 8 for _ in range(part)] for _ in range(hidden)], dtype),
             tensor2d([[rng.randint(-8, 8) / 8 for _ in range(hidden)] for _ in range(part)], dtype))
            for _ in range(world)]


def draw(case: Case, rows: int, rng: random.Random) -> tuple[list[list[float]], list[Shards]]:
    """A case's x (``rows`` × hidden, multiples of 1/4 up to 2 with low bits that no narrower
    float holds: it travels) and every rank's shards of W1 and W2 (hidden × ffn), drawn in that
    order."""
    d = case["hidden"]
    x = [refined([rng.randint(-8, 8) / 4 for _ in range(d)], 1 / 4, 4, X_HEADROOM, case.dtype, rng)
         for _ in range(rows)]
    return x, mlp_shards(d, case["ffn"], case.world, case.dtype, rng)


def shards_of(inputs: Sequence[Mapping[str, list[TensorData]]]) -> list[Shards]:
    """Every rank's shards of W1 and W2, read back from its call (``{"call": [x, W1_r, W2_r]}``)."""
    return [(i["call"][1], i["call"][2]) for i in inputs]


def mlp_partial(x: list[list[float]], w1: TensorData, w2: TensorData,
                act: Callable[[float], float] = gelu) -> list[list[float]]:
    """One rank's partial output act(x·W1_r)·W2_r, in exact sums before one rounding."""
    a, b = matrix(w1), matrix(w2)
    h = [[act(math.fsum(xi * a[k][j] for k, xi in enumerate(row))) for j in range(len(b))]
         for row in x]
    return [[math.fsum(hk * b[k][j] for k, hk in enumerate(row)) for j in range(len(b[0]))]
            for row in h]


def mlp_output(x: list[list[float]], shards: Sequence[Shards],
               act: Callable[[float], float] = gelu) -> list[list[float]]:
    """y = act(x·W1)·W2: the sum of every rank's partial output."""
    partials = [mlp_partial(x, w1, w2, act) for w1, w2 in shards]
    return [[math.fsum(col) for col in zip(*rows, strict=True)]
            for rows in zip(*partials, strict=True)]
