"""Trusted grading code for pipeline-1f1b: each stage's fwd and bwd, the microbatches, the
input gradients stage 0 returns, what each call was given, and the stashed activations each
stage holds (its memory bound).

Stage s's fwd adds a_s (an affine map with scale 1) and its bwd(x, grad) returns
grad + x + b_s; the last stage's output y is its own gradient (the loss ½‖y‖²). Inputs are
distinct multiples of 1/16 and the a_s, b_s multiples of 4 below 1024, so every value is exact
in float32.
"""

from __future__ import annotations

import random
from typing import Any

from cjudge.kit import pipeline
from cjudge.kit.case import Case
from cjudge.kit.pieces import first_unfed, item_of
from cjudge.kit.where import peak
from cjudge.switch.functions import digest, pack
from cjudge.switch.trace import Compute, SwitchTrace


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Stage 0: M microbatches of distinct exact values; every other stage: M zero tensors of
    the same shape and dtype (placeholders). Each stage's fwd and bwd, drawn per case."""
    batches = pipeline.microbatches(case, rng)
    shifts = rng.sample(range(4, 1024, 4), 2 * case.world)
    numel, shape = pipeline.activation(case), list(case.params["act_shape"])
    inputs = []
    for stage in range(case.world):
        fwd = {"fn": "affine", "params": {"scale": 1, "shift": shifts[2 * stage],
                                          "label": "fwd", "unit": numel}}
        bwd = {"fn": "backward", "params": {"shift": shifts[2 * stage + 1], "label": "bwd",
                                            "unit": numel}}
        inputs.append({"call": [fwd, bwd, batches[stage], {"tuple": shape}]})
    return inputs


def _flow(inputs: list[dict[str, Any]]) -> tuple[list[list[list[float]]], list[list[list[float]]]]:
    """Per stage s and microbatch i: the input stage s's fwd is given (x[s][i]), and the
    gradient its bwd is given (g[s][i]); g[n][i] … stage 0's result is g[0][i]."""
    world = len(inputs)
    xs = [[list(mb["data"]) for mb in inputs[0]["call"][2]]]
    for stage in range(world):
        shift = inputs[stage]["call"][0]["params"]["shift"]
        xs.append([[v + shift for v in x] for x in xs[-1]])
    gs = [xs[world]]  # the last stage's output is its own gradient
    for stage in reversed(range(world)):
        shift = inputs[stage]["call"][1]["params"]["shift"]
        gs.insert(0, [[g + v + shift for g, v in zip(gi, xi, strict=True)]
                      for gi, xi in zip(gs[0], xs[stage], strict=True)])
    return xs, gs


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[Any]:
    """Stage 0 returns each microbatch's input gradient, in microbatch order; the others None."""
    return [pipeline.tensors(case, _flow(inputs)[1][0])] + [None] * (case.world - 1)


def bytes_bound(case: Case) -> list[int]:
    """Stage s sends each microbatch's activation forward (s < n − 1) and its input gradient
    back (s > 0): M · A bytes each way."""
    each = pipeline.activation_bytes(case)
    return [each * ((stage < case.world - 1) + (stage > 0)) for stage in range(case.world)]


def check_computes(case: Case, inputs: list[dict[str, Any]], computes: list[Compute],
                   trace: SwitchTrace) -> tuple[str, str] | None:
    """Stage s's fwd was given its M inputs in order, one call each, and its i-th bwd call,
    after the i-th fwd, microbatch i's stashed input and output gradient, for all M (the
    drain's too); and what crossed a stage boundary came out of the stage's function: every
    activation sent downstream is a fwd output, every gradient sent upstream a bwd output."""
    xs, gs = _flow(inputs)
    dtype, m = case.dtype, case["microbatches"]
    for stage in range(case.world):
        want = [v for x in xs[stage] for v in x]
        fwds, bwds = (pipeline.calls_of(computes, stage, name) for name in ("affine", "backward"))
        if first_unfed(computes, stage, "affine", want, dtype) is not None or len(fwds) != m:
            return pipeline.apply_each(case, stage, "fwd")
        if len(bwds) != m:
            return (f"stage {stage} called bwd {len(bwds)} times: every microbatch's backward "
                    f"runs on every stage, the drain's included, {m} calls, each given one "
                    "microbatch's stashed input and its output's gradient",
                    f"stage {stage} 调用了 {len(bwds)} 次 bwd：每个微批次的反向都要在每个 "
                    f"stage 上运行，包括排空阶段，共 {m} 次，每次给一个微批次暂存的输入及其输出的梯度")
        early = next((i for i in range(m) if bwds[i] < fwds[i]), None)
        if early is not None:
            return (f"stage {stage} called bwd for microbatch {early} before its fwd: a "
                    "microbatch's backward starts from what its forward made (on the last stage, "
                    "the gradient is fwd's output)",
                    f"stage {stage} 在微批次 {early} 的 fwd 之前调用了它的 bwd：反向从前向的结果"
                    "开始（最后一个 stage 上，梯度就是 fwd 的输出）")
        for i, call in enumerate(computes[k] for k in bwds):
            pair = [digest(pack(xs[stage][i], dtype)), digest(pack(gs[stage + 1][i], dtype))]
            if call.get("inputs") != pair:
                return (f"stage {stage}'s bwd call {i + 1} was not given microbatch {i}'s "
                        "stashed input and its output's gradient: bwd(x, grad) takes the x this "
                        "stage gave fwd and the gradient from the next stage (on the last "
                        "stage, fwd's output itself), one microbatch a call, in order",
                        f"stage {stage} 第 {i + 1} 次调用 bwd 得到的不是微批次 {i} 暂存的输入"
                        "与其输出的梯度：bwd(x, grad) 接受本 stage 交给 fwd 的 x 和下一个 stage "
                        "传回的梯度（最后一个 stage：fwd 的输出本身），每次一个微批次，按顺序")
    return pipeline.sends_made(trace, {1: "fwd", -1: "bwd"})


def memory(case: Case, inputs: list[dict[str, Any]], trace: dict[str, Any]) -> dict[str, Any]:
    """Stashed activations: an input given to fwd is stashed until a bwd call is given it. Per
    stage, in its calls' order, fwd adds its microbatches (units) and bwd takes its away; the
    peak over the stages is bounded by n."""
    most = peak({stage: [(c["units"] if c["name"] == "affine" else -c["units"],
                            "fwd" if c["name"] == "affine" else "bwd", c.get("line"))
                           for c in trace.get("computes", []) if c["rank"] == stage]
                   for stage in range(case.world)})
    at, at_zh = most.at(named=True)
    return {"peak": most.held, "bound": case.world, "what": "stashed activations",
            "what_zh": "个暂存的激活",
            "message": f"stage {most.rank} held {most.held} stashed activations at once "
                       f"(inputs given to fwd and not yet to bwd), {at}; 1F1B holds at "
                       f"most n = {case.world} on any stage: after n − s − 1 warm-up forwards, "
                       "run one backward after each forward",
            "message_zh": f"stage {most.rank} {at_zh}同时暂存了 {most.held} 个激活"
                          "（已交给 fwd、尚未交给 bwd 的输入）；1F1B 在任何 stage 上最多暂存 "
                          f"n = {case.world} 个：先做 n − s − 1 次预热前向，之后每次前向后接一次反向"}


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """Which microbatch's input gradient a wrong element of output ``path`` ("[i]") is, when
    it is another one's (outputs out of order); or a gradient whose bwd on some stage was
    given another microbatch's stashed input."""
    i = item_of(path)
    if rank != 0 or i is None:
        return None
    xs, gs = _flow(inputs)
    if i >= len(gs[0]):
        return None
    source = next((j for j, g in enumerate(gs[0]) if j != i and g[index] == got), None)
    if source is not None:
        return (f"output {i} holds microbatch {source}'s input gradient: stage 0 must return "
                "them in microbatch order",
                f"输出 {i} 是微批次 {source} 的输入梯度：stage 0 必须按微批次顺序返回")
    for stage in range(case.world):  # got = want − x[stage][i] + x[stage][j]: bwd given j's stash
        for j in range(len(xs[stage])):
            if j != i and got == gs[0][i][index] - xs[stage][i][index] + xs[stage][j][index]:
                return (f"stage {stage}'s bwd for microbatch {i} was given microbatch {j}'s "
                        "stashed input: keep each microbatch's input until its own backward",
                        f"stage {stage} 对微批次 {i} 调用 bwd 时给的是微批次 {j} 暂存的输入："
                        "每个微批次的输入要保留到它自己的反向计算")
    return None
