"""Trusted grading code for compressed-allreduce: gradients for three steps, the scale, the
results of the int8 codes with error feedback (exact: every value is a multiple of scale/16,
every code within ±15), the byte bound, and what a wrong result means.

In units of scale, each element of the first two steps is k + f with k in [-14, 14] and f in
{5, 6, 7}/16: the first step always rounds down and leaves a residual f0, the second always
rounds up (x = k + f1 + f0) and leaves f0 + f1 − 1, so a run without error feedback is off by
n at step 1. The third step's element is k + t + 1 − f0 − f1 with t in {9, 10, 11}/16: with the
right residual x = k + t rounds up; with a residual taken from the gradient instead of x
(g − codes·scale, which drops f0) x = k + t − f0 rounds down, off by n at step 2. Two steps
could not tell them apart: the first residual starts from zero, so g = x there.

A rank is given step 0's gradient; the judge's ``next_grad(result)`` (a training step: the
model updated with a step's all-reduced result yields the next gradient) answers step t + 1's,
and must be given step t's result: the next input exists only once the last all-reduce has
completed, so no two steps' codes can travel in one all-reduce.
"""

from __future__ import annotations

import math
import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import item_of
from cjudge.switch.functions import digest, pack

STEPS = 3
SCALE = 1 / 16


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Rank r: its step-0 gradient, the judge's next_grad (answering steps 1 and 2's, one a
    call), the number of steps and the quantization scale."""
    numel = case["numel"]

    def element() -> list[float]:
        f0, f1, t = (rng.randint(5, 7) / 16, rng.randint(5, 7) / 16, rng.randint(9, 11) / 16)
        return [(rng.randint(-14, 14) + f) * SCALE for f in (f0, f1, t + 1 - f0 - f1)]

    def grads() -> list[dict[str, Any]]:
        steps = list(zip(*(element() for _ in range(numel)), strict=True))
        return [{"shape": [numel], "dtype": "float32", "data": list(d)} for d in steps]

    def call() -> list[Any]:
        first, *rest = grads()
        return [first, {"fn": "train_step", "params": {"items": rest, "label": "next_grad",
                                                        "unit": numel}}, STEPS, SCALE]

    return [{"call": call()} for _ in range(case.world)]


def _grads(rank_input: dict[str, Any]) -> list[list[float]]:
    """A rank's gradient at each step: the one it is given, then what next_grad answers."""
    first, train = rank_input["call"][0], rank_input["call"][1]
    return [first["data"]] + [g["data"] for g in train["params"]["items"]]


def _codes(x: float) -> int:
    """int8 code of x: round half to even, clamp to ±127 (torch.round, torch.clamp)."""
    return max(-127, min(127, round(x / SCALE)))


def _results(inputs: list[dict[str, Any]], feedback: str = "x") -> list[list[float]]:
    """Each step's sum of every rank's codes, times scale, the residual kept as ``x − codes·scale``
    (``feedback="x"``, right), as ``g − codes·scale`` (``"g"``) or not at all (``""``)."""
    grads = [_grads(i) for i in inputs]
    numel = len(grads[0][0])
    residual = [[0.0] * numel for _ in inputs]
    out = []
    for step in range(STEPS):
        total = [0] * numel
        for r, steps in enumerate(grads):
            for j, g in enumerate(steps[step]):
                x = g + residual[r][j]
                code = _codes(x)
                residual[r][j] = {"x": x, "g": g}.get(feedback, code * SCALE) - code * SCALE
                total[j] += code
        out.append([c * SCALE for c in total])
    return out


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every rank returns the three steps' results, float32 tensors of the gradient's shape."""
    numel = case["numel"]
    results = [{"shape": [numel], "dtype": "float32", "data": r} for r in _results(inputs)]
    return [results for _ in inputs]


def bytes_bound(case: Case) -> int:
    """Three int8 ring all-reduces: 3 · 2(n − 1)·⌈N/n⌉ one-byte codes."""
    return STEPS * 2 * (case.world - 1) * math.ceil(case["numel"] / case.world)


def check_computes(case: Case, inputs: list[dict[str, Any]],
                   computes: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Each rank called next_grad once after each step but the last, given that step's
    all-reduced result (what it returns for the step): the next gradient is released only to
    a rank holding the last step's sum."""
    results = [digest(pack(r, "float32")) for r in _results(inputs)]
    for rank in range(case.world):
        given = [c["input"] for c in computes if c["rank"] == rank and c["name"] == "train_step"]
        wrong = next((k for k, d in enumerate(given) if d != results[k]), None)
        if wrong is None and len(given) == STEPS - 1:
            continue
        step = wrong if wrong is not None else len(given)
        return (f"rank {rank}'s call {step + 1} of next_grad was not given step {step}'s "
                "all-reduced result: the next step's gradient comes from the model updated with "
                "this step's sum, so call next_grad(result) once after each step's all-reduce "
                "(not the last), with the float32 result you return for that step",
                f"rank {rank} 第 {step + 1} 次调用 next_grad 时给的不是第 {step} 步 all-reduce "
                "之后的结果：下一步的梯度来自用本步之和更新过的模型，所以每一步（最后一步除外）"
                "all-reduce 之后调用一次 next_grad(result)，参数是你为该步返回的 float32 结果")
    return None


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """Which step's result ``path`` ("[s]") is, and what a wrong element matches: the result
    without error feedback, the exact sum, or the codes' sum not multiplied by scale."""
    step = item_of(path)
    if step is None or step >= STEPS:
        return None
    exact = math.fsum(_grads(i)[step][index] for i in inputs)
    if step > 0 and got == _results(inputs, feedback="")[step][index]:
        return (f"step {step} is summed without the residual of step {step - 1}: each rank must "
                "add what rounding lost to its next gradient (error feedback)",
                f"第 {step} 步求和时没有加上第 {step - 1} 步的残差：每个 rank 都必须把舍入丢掉的部分"
                "加到下一步的梯度上（误差反馈）")
    if step > 1 and got == _results(inputs, feedback="g")[step][index]:
        return (f"step {step} adds a wrong residual: step {step - 1} kept g − codes·scale, but "
                "the residual is x − codes·scale with x = g + the previous residual (what "
                "rounding lost must include what was carried in)",
                f"第 {step} 步加上的残差不对：第 {step - 1} 步保留的是 g − codes·scale，而残差应是 "
                "x − codes·scale，其中 x = g + 上一步的残差（舍入丢掉的部分要包括带进来的残差）")
    if got == exact:
        return ("this is the exact sum: the result must be the sum of the int8 codes times scale",
                "这是精确的和：结果必须是 int8 编码之和乘以 scale")
    if got == _results(inputs)[step][index] / SCALE:
        return ("this is the sum of the codes: multiply it by scale",
                "这是编码之和：还要乘以 scale")
    return None
