"""Trusted grading code for compressed-allreduce: gradients for two steps, the scale, the
results of the int8 codes with error feedback (exact: every value is a multiple of scale/16,
every code within ±15), the byte bound, and what a wrong result means.

Each gradient element is (k + f)·scale with k in [-14, 14] and f in {5, 6, 7}/16: the first
step always rounds down and leaves a residual of f·scale, the second always rounds up, so a
run without error feedback is off by about 0.75·n·scale in the two steps' total, against the
n·scale/2 that error feedback guarantees.
"""

from __future__ import annotations

import math
import random
import re

from cjudge.kit.case import Case

STEPS = 2
SCALE = 1 / 16


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Rank r: its gradient at each of the two steps and the quantization scale."""
    case = Case.of(params, world)
    numel = case["numel"]

    def grad() -> dict:
        return {"shape": [numel], "dtype": "float32",
                "data": [(rng.randint(-14, 14) + rng.randint(5, 7) / 16) * SCALE
                         for _ in range(numel)]}

    return [{"call": [[grad() for _ in range(STEPS)], SCALE]} for _ in range(world)]


def _codes(x: float) -> int:
    """int8 code of x: round half to even, clamp to ±127 (torch.round, torch.clamp)."""
    return max(-127, min(127, round(x / SCALE)))


def _results(inputs: list[dict], feedback: bool = True) -> list[list[float]]:
    """Each step's sum of every rank's codes, times scale (with or without error feedback)."""
    numel = len(inputs[0]["call"][0][0]["data"])
    residual = [[0.0] * numel for _ in inputs]
    out = []
    for step in range(STEPS):
        total = [0] * numel
        for r, i in enumerate(inputs):
            for j, g in enumerate(i["call"][0][step]["data"]):
                x = g + residual[r][j]
                code = _codes(x)
                residual[r][j] = x - code * SCALE if feedback else 0.0
                total[j] += code
        out.append([c * SCALE for c in total])
    return out


def expected(params: dict, world: int, inputs: list[dict]) -> list[list[dict]]:
    """Every rank returns the two steps' results, float32 tensors of the gradient's shape."""
    case = Case.of(params, world)
    numel = case["numel"]
    results = [{"shape": [numel], "dtype": "float32", "data": r} for r in _results(inputs)]
    return [results for _ in inputs]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """Two int8 ring all-reduces: 2 · 2(n − 1)·⌈N/n⌉ one-byte codes."""
    case = Case.of(params, world)
    return STEPS * 2 * (world - 1) * math.ceil(case["numel"] / world)


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """Which step's result ``path`` ("[s]") is, and what a wrong element matches: the result
    without error feedback, the exact sum, or the codes' sum not multiplied by scale."""
    match = re.fullmatch(r"\[(\d+)\]", path)
    if match is None or int(match.group(1)) >= STEPS:
        return None
    step = int(match.group(1))
    exact = math.fsum(i["call"][0][step]["data"][index] for i in inputs)
    if step > 0 and got == _results(inputs, feedback=False)[step][index]:
        return (f"step {step} is summed without the residual of step {step - 1}: each rank must "
                "add what rounding lost to its next gradient (error feedback)",
                f"第 {step} 步求和时没有加上第 {step - 1} 步的残差：每个 rank 都必须把舍入丢掉的部分"
                "加到下一步的梯度上（误差反馈）")
    if got == exact:
        return ("this is the exact sum: the result must be the sum of the int8 codes times scale",
                "这是精确的和：结果必须是 int8 编码之和乘以 scale")
    if got == _results(inputs)[step][index] / SCALE:
        return ("this is the sum of the codes: multiply it by scale",
                "这是编码之和：还要乘以 scale")
    return None
