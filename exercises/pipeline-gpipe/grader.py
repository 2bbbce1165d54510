"""Trusted grading code for pipeline-gpipe: stage functions, microbatches, outputs, bound,
and a diagnosis in pipeline terms (which stages a microbatch went through, which one it is).

Stage s's function adds 2^s · STEP (an affine map with scale 1), and every input element is a
distinct nonzero multiple of 1/16 below STEP / 2 in magnitude. So a wrong element x + m · STEP
says exactly which microbatch it came from (x) and which stages it went through (the bits of m),
exactly in float32 for up to 8 stages.
"""

from __future__ import annotations

import random
import re

STEP = 512  # stage s adds 2^s * STEP
LIMIT = 2048  # inputs are k / 16 with 0 < |k| <= LIMIT, so |x| <= 128 < STEP / 2


def _numel(params: dict) -> int:
    size = 1
    for d in params["act_shape"]:
        size *= int(d)
    return size


def stage_fn(stage: int, numel: int) -> dict:
    """Stage ``stage``'s function as the judge hands it: one charge per microbatch of work."""
    return {"fn": "affine", "params": {"scale": 1, "shift": STEP << stage,
                                       "label": f"stage_{stage}", "unit": numel}}


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Stage 0: M microbatches of distinct exact values; every other stage: M zero tensors of
    the same shape and dtype (placeholders: the count, shape and dtype, never the data)."""
    m, numel, shape = int(params["microbatches"]), _numel(params), list(params["act_shape"])
    pool = [k for k in range(-LIMIT, LIMIT + 1) if k != 0]
    values = [k / 16 for k in rng.sample(pool, m * numel)]
    inputs = []
    for stage in range(world):
        batches = [{"shape": shape, "dtype": params["dtype"],
                    "data": values[i * numel:(i + 1) * numel] if stage == 0 else [0.0] * numel}
                   for i in range(m)]
        inputs.append({"call": [stage_fn(stage, numel), batches, {"tuple": shape}]})
    return inputs


def _microbatches(inputs: list[dict]) -> list[dict]:
    return inputs[0]["call"][1]


def expected(params: dict, world: int, inputs: list[dict]) -> list:
    """The last stage returns every microbatch after stages 0, 1, …, n−1, in microbatch order;
    the other stages return None."""
    total = STEP * ((1 << world) - 1)
    outputs = [{"shape": list(mb["shape"]), "dtype": mb["dtype"],
                "data": [x + total for x in mb["data"]]} for mb in _microbatches(inputs)]
    return [None] * (world - 1) + [outputs]


def bytes_bound(params: dict, world: int, itemsize: int) -> list[int]:
    """Every stage but the last sends each microbatch's activation once (M · A bytes); the last
    stage sends nothing."""
    per_stage = int(params["microbatches"]) * _numel(params) * itemsize
    return [per_stage] * (world - 1) + [0]


def _stages(mask: int) -> str:
    """"stage 3" or "stages 0, 2": the stages whose bits ``mask`` sets."""
    found = [str(s) for s in range(mask.bit_length()) if mask >> s & 1]
    return f"stage {found[0]}" if len(found) == 1 else "stages " + ", ".join(found)


def _stages_zh(mask: int) -> str:
    """The same in Chinese, where "stage" has no plural."""
    return "stage " + ", ".join(str(s) for s in range(mask.bit_length()) if mask >> s & 1)


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """Which microbatch output ``path`` ("[i]") holds at ``index``, and which stages it went
    through: a skipped or doubled stage, an output out of order, a stage that computed on a
    buffer it never received into."""
    match = re.fullmatch(r"\[(\d+)\]", path)
    if rank != world - 1 or match is None:
        return None
    i, full = int(match.group(1)), (1 << world) - 1
    for source, mb in enumerate(_microbatches(inputs)):
        mask = (got - mb["data"][index]) / STEP
        if mask == int(mask) and 0 <= mask < 1 << (world + 1):
            return _explain(i, source, int(mask), full)
    mask = got / STEP  # no microbatch's value in it: stages applied to a zero placeholder
    if mask == int(mask) and 0 < mask < 1 << world:
        first = (int(mask) & -int(mask)).bit_length() - 1
        return (f"output {i} is {_stages(int(mask))} applied to zeros, not to any "
                f"microbatch: stage {first} computed on a buffer it never received microbatch "
                f"{i} into (the placeholders on stages > 0 are zeros)",
                f"输出 {i} 是 {_stages_zh(int(mask))} 作用在全零上的结果，而不是任何微批次："
                f"stage {first} 在一个没有收到微批次 {i} 的缓冲区上做了计算（stage > 0 上的占位张量全为零）")
    return None


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

