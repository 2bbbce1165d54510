"""Pipeline parallelism for the pipeline graders: a case's microbatches of activations (its
``act_shape`` parameter), stage by stage, and the rule each stage's function is checked by.

Stage 0 is given M microbatches of distinct exact values, every other stage M zero
placeholders of the same shape and dtype (the count, shape and dtype, never the data): a stage
computing on what it never received shows as a function applied to zeros.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ..contract.protocol import TensorData
from ..switch.trace import Compute, SwitchTrace
from .case import Case
from .pieces import distinct_exact

LIMIT = 2048  # inputs are k / 16 + low bits with 0 < |k| <= LIMIT, so |x| <= 128
#: the bits the stages' shifts add to an input's (sums below 2**20): low bits stop short of them
HEADROOM = 12


def activation(case: Case) -> int:
    """Elements of one microbatch's activation: the product of ``act_shape``."""
    return math.prod(int(d) for d in case.params["act_shape"])


def tensors(case: Case, data: list[list[float]]) -> list[TensorData]:
    """Each microbatch's ``data`` as a tensor of ``act_shape``."""
    return [{"shape": list(case.params["act_shape"]), "dtype": case.dtype, "data": d}
            for d in data]


def microbatches(case: Case, rng: random.Random) -> list[list[TensorData]]:
    """Per stage, its M microbatches: stage 0's distinct exact values, the others' zeros."""
    m, numel = case["microbatches"], activation(case)
    values = distinct_exact(m * numel, LIMIT, HEADROOM, case.dtype, rng)
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


def calls_of(computes: Sequence[Compute], stage: int, name: str) -> list[int]:
    """The indices in ``computes`` of ``stage``'s calls of the judge's function ``name``, in
    the order it made them."""
    return [i for i, c in enumerate(computes) if c["rank"] == stage and c["name"] == name]


def sends_made(trace: SwitchTrace, labels: dict[int, str]) -> tuple[str, str] | None:
    """Whether every graded send of a stage s carries what one of its own earlier calls of a
    judge's function returned (the switch marks each send with the call whose output it
    carries, ``Request.carries``: a value the rank computed itself, or sent before calling the
    function, carries none). ``labels`` names, by direction (+1: to stage s + 1, −1: to
    s − 1), the function whose output goes that way, for the message. (English, Chinese) for
    the first send that breaks it."""
    computes = trace.get("computes", [])
    for req in trace["requests"]:
        if not req["graded"] or req["kind"] != "send" or req["peer"] is None:
            continue
        stage, peer, made = req["rank"], req["peer"], req.get("carries")
        if made is not None and 0 <= made < len(computes) and computes[made]["rank"] == stage:
            continue
        label = labels.get(peer - stage, "stage function")
        at = f"at line {req['line']} " if req["line"] is not None else ""
        at_zh = f"第 {req['line']} 行" if req["line"] is not None else ""
        return (f"stage {stage}'s send {at}to stage {peer} carries data that no earlier call of "
                f"a function the judge gave stage {stage} returned: what it passes to stage "
                f"{peer} must be the output of its {label}, whole as it returned it, called "
                "before the send (computing it yourself, or calling the function only after "
                "sending, is not running the stage)",
                f"stage {stage} {at_zh}发给 stage {peer} 的数据不是评测机交给 stage {stage} 的函数"
                f"之前任何一次调用的输出：传给 stage {peer} 的必须是先调用 {label} 得到的完整输出"
                "（自己算出结果，或发送之后才调用函数，都不算运行了这个 stage）")
    return None
