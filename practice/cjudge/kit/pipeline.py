"""Pipeline parallelism for the pipeline graders: a case's microbatches of activations (its
``act_shape`` parameter), stage by stage, and the rule each stage's function is checked by.

Stage 0 is given M microbatches of distinct exact values, every other stage M zero
placeholders of the same shape and dtype (the count, shape and dtype, never the data): a stage
computing on what it never received shows as a function applied to zeros.
"""

from __future__ import annotations

import math
import random

from .case import Case
from .pieces import distinct_exact

LIMIT = 2048  # inputs are k / 16 with 0 < |k| <= LIMIT, so |x| <= 128


def activation(case: Case) -> int:
    """Elements of one microbatch's activation: the product of ``act_shape``."""
    return math.prod(int(d) for d in case.params["act_shape"])


def tensors(case: Case, data: list[list[float]]) -> list[dict]:
    """Each microbatch's ``data`` as a tensor of ``act_shape`` (``protocol.TensorData``)."""
    return [{"shape": list(case.params["act_shape"]), "dtype": case.dtype, "data": d}
            for d in data]


def microbatches(case: Case, rng: random.Random) -> list[list[dict]]:
    """Per stage, its M microbatches: stage 0's distinct exact values, the others' zeros."""
    m, numel = case["microbatches"], activation(case)
    values = distinct_exact(m * numel, LIMIT, rng)
    return [tensors(case, [values[i * numel:(i + 1) * numel] if stage == 0 else [0.0] * numel
                           for i in range(m)]) for stage in range(case.world)]


def activation_bytes(case: Case) -> int:
    """Bytes of the M microbatches' activations, M · A: what a stage passes on each way."""
    return case["microbatches"] * activation(case) * case.itemsize


def apply_each(case: Case, stage: int, fn: str) -> tuple[str, str]:
    """The rule a stage's calls of ``fn`` broke, (English, Chinese)."""
    m = case["microbatches"]
    return (f"stage {stage} must apply {fn} to each of the {m} microbatches it receives "
            "(stage 0: its own), once and in order, and to nothing else",
            f"stage {stage} 必须对收到的 {m} 个微批次（stage 0：它自己的）各调用一次 "
            f"{fn}，按顺序，且不作用于其他数据")
