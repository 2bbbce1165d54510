"""Trusted grading code for pipeline-gpipe: stage functions, microbatches, outputs, bound,
what each stage's function was given, and a diagnosis in pipeline terms (which stages a
microbatch went through, which one it is).

Stage s's function adds 2^p_s · STEP (an affine map with scale 1), the p_s distinct and drawn
per case from BITS positions, and every input element is a distinct nonzero multiple of 1/16
below STEP / 2 in magnitude. So a wrong element x + m · STEP says exactly which microbatch it
came from (x) and which stages it went through (the bits of m), exactly in float32 for up to 8
stages.
"""

from __future__ import annotations

import random
from typing import Any, cast

from cjudge.kit import pipeline
from cjudge.kit.case import Case
from cjudge.kit.pieces import first_unfed, item_of
from cjudge.switch.trace import Compute, SwitchTrace

STEP = 512  # stage s adds 2^p_s * STEP
BITS = 10  # the positions p_s are drawn from range(BITS): every sum is exact in float32
# inputs are below pipeline.LIMIT / 16 = 128 < STEP / 2 in magnitude


def stage_fn(stage: int, shift: int, numel: int) -> dict[str, Any]:
    """Stage ``stage``'s function as the judge hands it (the switch keeps ``shift``): one charge
    per microbatch of work."""
    return {"fn": "affine", "params": {"scale": 1, "shift": shift, "label": f"stage_{stage}",
                                       "unit": numel}}


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Stage 0: M microbatches of distinct exact values; every other stage: M zero tensors of
    the same shape and dtype (placeholders: the count, shape and dtype, never the data). Each
    stage's shift is drawn here, per case."""
    batches = pipeline.microbatches(case, rng)
    shifts = [STEP << p for p in rng.sample(range(BITS), case.world)]
    numel, shape = pipeline.activation(case), list(case.params["act_shape"])
    return [{"call": [stage_fn(stage, shifts[stage], numel), batches[stage], {"tuple": shape}]}
            for stage in range(case.world)]


def _microbatches(inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], inputs[0]["call"][1])


def _shifts(inputs: list[dict[str, Any]]) -> list[int]:
    """Each stage's shift, in STEPs (distinct powers of two)."""
    return [i["call"][0]["params"]["shift"] // STEP for i in inputs]


def check_computes(case: Case, inputs: list[dict[str, Any]], computes: list[Compute],
                   trace: SwitchTrace) -> tuple[str, str] | None:
    """Stage s applied its stage_fn to each of the M microbatches it received, once and in
    order, and to nothing else: its calls, in order, were given exactly microbatches 0 … M−1
    after stages 0 … s−1 (one call each, or several stacked in one); and every activation it
    sent on is what one of its earlier calls returned (a whole output, or one microbatch of a
    stacked one)."""
    shifts = _shifts(inputs)
    for stage in range(case.world):
        before = STEP * sum(shifts[:stage])
        want = [x + before for mb in _microbatches(inputs) for x in mb["data"]]
        wrong = first_unfed(computes, stage, "affine", want, case.dtype)
        if wrong is None:
            continue
        call, calls = wrong
        which = (f"its call {call + 1} of {calls} was given something else" if call < calls
                 else f"its {calls} calls were given less than that")
        which_zh = (f"它的第 {call + 1} 次调用（共 {calls} 次）得到的是别的数据" if call < calls
                    else f"它的 {calls} 次调用得到的数据比这少")
        rule, rule_zh = pipeline.apply_each(case, stage, "stage_fn")
        return f"{rule}; {which}", f"{rule_zh}；{which_zh}"
    return pipeline.sends_made(trace, {1: "stage_fn"})


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[Any]:
    """The last stage returns every microbatch after stages 0, 1, …, n−1, in microbatch order;
    the other stages return None."""
    total = STEP * sum(_shifts(inputs))
    outputs = [[x + total for x in mb["data"]] for mb in _microbatches(inputs)]
    return [None] * (case.world - 1) + [pipeline.tensors(case, outputs)]


def bytes_bound(case: Case) -> list[int]:
    """Every stage but the last sends each microbatch's activation once (M · A bytes); the last
    stage sends nothing."""
    return [pipeline.activation_bytes(case)] * (case.world - 1) + [0]


def _stages(mask: int) -> str:
    """"stage 3" or "stages 0, 2": the stages whose bits ``mask`` sets."""
    found = [str(s) for s in range(mask.bit_length()) if mask >> s & 1]
    return f"stage {found[0]}" if len(found) == 1 else "stages " + ", ".join(found)


def _stages_zh(mask: int) -> str:
    """The same in Chinese, where "stage" has no plural."""
    return "stage " + ", ".join(str(s) for s in range(mask.bit_length()) if mask >> s & 1)


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """Which microbatch output ``path`` ("[i]") holds at ``index``, and which stages it went
    through: a skipped or doubled stage, an output out of order, a stage that computed on a
    buffer it never received into."""
    i = item_of(path)
    if rank != case.world - 1 or i is None:
        return None
    full, shifts = (1 << case.world) - 1, _shifts(inputs)
    for source, mb in enumerate(_microbatches(inputs)):
        mask = _stage_mask((got - mb["data"][index]) / STEP, shifts)
        if mask is not None:
            return _explain(i, source, mask, full)
    mask = _stage_mask(got / STEP, shifts)  # no microbatch's value: stages applied to zeros
    if mask is not None and 0 < mask <= full:
        first = (mask & -mask).bit_length() - 1
        return (f"output {i} is {_stages(mask)} applied to zeros, not to any "
                f"microbatch: stage {first} computed on a buffer it never received microbatch "
                f"{i} into (the placeholders on stages > 0 are zeros)",
                f"输出 {i} 是 {_stages_zh(mask)} 作用在全零上的结果，而不是任何微批次："
                f"stage {first} 在一个没有收到微批次 {i} 的缓冲区上做了计算（stage > 0 上的占位张量全为零）")
    return None


def _stage_mask(steps: float, shifts: list[int]) -> int | None:
    """The stages whose shifts add up to ``steps`` STEPs, as bits (stage s: bit s), each once
    or, past all of them, one stage once more (bit n + s: stage s twice); None if no such set
    does."""
    if steps != int(steps) or steps < 0:
        return None
    k, full = int(steps), sum(shifts)
    if k > full and k - full in shifts:
        return (1 << len(shifts)) - 1 + (1 << shifts.index(k - full))
    mask = sum(1 << s for s, shift in enumerate(shifts) if k & shift)
    return mask if sum(shift for s, shift in enumerate(shifts) if mask >> s & 1) == k else None


def _explain(i: int, source: int, mask: int, full: int) -> tuple[str, str] | None:
    """Say what microbatch ``source`` after the stages ``mask`` means in output slot ``i``."""
    en: list[str] = []
    zh: list[str] = []
    if source != i:
        en.append(f"output {i} holds microbatch {source}'s value: the last stage must return "
                  "the outputs in microbatch order")
        zh.append(f"输出 {i} 是微批次 {source} 的值：最后一个 stage 必须按微批次顺序返回输出")
    if mask > full and (mask - full) & (mask - full - 1) == 0:
        twice = (mask - full).bit_length() - 1
        en.append(f"microbatch {source} went through stage {twice} twice")
        zh.append(f"微批次 {source} 经过了 stage {twice} 两次")
    elif mask == 0:
        en.append(f"microbatch {source} went through no stage at all")
        zh.append(f"微批次 {source} 没有经过任何 stage")
    elif mask < full:
        skipped = _stages(full & ~mask)
        only = " only" if mask & (mask - 1) == 0 else ""
        were = "were" if skipped.startswith("stages") else "was"
        en.append(f"microbatch {source} went through {_stages(mask)}{only} — {skipped} {were} "
                  "skipped")
        zh.append(f"微批次 {source} 只经过了 {_stages_zh(mask)}——跳过了 "
                  f"{_stages_zh(full & ~mask)}")
    elif mask != full:
        en.append(f"microbatch {source} went through some stage(s) more than once")
        zh.append(f"微批次 {source} 多次经过了某些 stage")
    return ("; ".join(en), "；".join(zh)) if en else None

