"""The rules section of a statement, generated from ``exercise.toml`` and the grader.

Every rule the judge applies is announced to the learner in both languages (DESIGN, "Rules a
learner is told"): the calls allowed, each case's byte bound, the message bound, the time bound
with its value at the headline size, the floor, the tolerance on results and the limits. The
section is appended to the statement wherever it is read (``Exercise.statement``), so a
statement and its judge cannot drift.
"""

from __future__ import annotations

import math
from typing import Any

from ..contract import values
from ..contract.units import format_size
from ..model.case import ModelSpec
from .exercises import Exercise

HEADINGS = {"en": "## Rules", "zh": "## 规则"}


def _charge(exercise: Exercise, zh: bool) -> str:
    """How a message's bytes are counted (``payload_bytes``)."""
    if exercise.payload_bytes == "as-sent":
        return ("消息按实际发送的字节计：压缩后的数据按其自身的字节数计。" if zh else
                "Messages count as sent: a compressed payload costs its own bytes.")
    return ("消息按用例的 dtype 计：比它窄的消息（如 float64 数据的 float32 副本、float32 数值的 "
            "int8 编码）按用例 dtype 的宽度计，转换精度或重新编码都省不下字节。" if zh else
            "Messages count at the case's dtype: a message narrower than it (a float32 copy of "
            "float64 data, int8 codes of float32 values) is charged at the case dtype's width, "
            "so a down-cast or a re-encoding saves no bytes.")


def _bytes(bound: Any) -> str:
    """``48`` or, per rank, ``96, 32, 32, 32``."""
    return ", ".join(map(str, bound)) if isinstance(bound, list | tuple) else str(bound)


def _case_list(items: list[tuple[str, int, str]], zh: bool) -> str:
    """``sample-4-ranks`` (n = 4): 48; …"""
    if zh:
        return "；".join(f"`{name}`（n = {n}）：{value}" for name, n, value in items)
    return "; ".join(f"`{name}` (n = {n}): {value}" for name, n, value in items)


def _tolerance(dtype: str) -> str:
    """``1e-5``."""
    return f"1e-{round(-math.log10(values.TOLERANCE[dtype]))}"


def _time(exercise: Exercise, zh: bool) -> str:
    """The time bound's rule, with its value at the largest judged case and size."""
    spec: ModelSpec = exercise.model
    assert spec.time_bound is not None
    judged = [c for c in exercise.cases if spec.judges(c.name)] or list(exercise.cases)
    case = max(judged, key=lambda c: c.world_size)
    size = max(spec.sizes)
    topo = spec.topology_for(case.world_size, case.params)
    shown = spec.time_bound.shown(**spec.variables(case.world_size, size, topo, case.params))
    sizes = ", ".join(format_size(s) for s in spec.sizes)
    machine, machine_zh = topo.described(case.world_size)
    tol = f"{100 * spec.tolerance:g} %"
    formula = f"`{spec.time_bound.formula}`"
    which = (("、" if zh else ", ").join(f"`{c}`" for c in spec.cases)
             if spec.cases is not None else None)
    if zh:
        cases = f"只评判用例 {which}" if which else "评判每个用例"
        return (f"* **时间。** 评测机按 α-β 模型在 {spec.topology} 上回放你的运行记录，"
                f"规模 S = {sizes}（S：一个 rank 的输入，每条消息随之缩放）。结果正确且未超字节"
                f"上限、但建模时间超过 {formula} 的 {tol} 以上时判为 `too_slow`（{cases}）。"
                f"在 {machine_zh}、S = {format_size(size)} 时，上限为 {shown}。")
    cases = f"judged on {which}" if which else "judged on every case"
    return (f"* **Time.** The judge replays your run's trace under the α-β model on "
            f"{spec.topology} at S = {sizes} (S: one rank's input, every message "
            f"scaled with it). A correct result within its bytes whose modelled time exceeds "
            f"{formula} by more than {tol} is `too_slow` ({cases}). With {machine} and "
            f"S = {format_size(size)} the bound is {shown}.")


def _calls(exercise: Exercise, zh: bool) -> str:
    """The calls rule: which ``dist`` calls the function may make."""
    fn = f"`{exercise.function}`"
    calls = ("、" if zh else ", ").join(f"`dist.{name}`" for name in exercise.allowed)
    if zh:
        return (f"* **调用。** 在 {fn} 中只能调用 {calls}；其他通信调用会被拒绝"
                "（`forbidden_primitive`）。" if calls else
                f"* **调用。** 在 {fn} 中不允许调用任何 `torch.distributed` 函数"
                "（`forbidden_primitive`）。")
    return (f"* **Calls.** Inside {fn} you may call only {calls}; any other "
            "communication call is refused (`forbidden_primitive`)." if calls else
            f"* **Calls.** Inside {fn} no `torch.distributed` call is allowed "
            "(`forbidden_primitive`).")


def _byte_bounds(exercise: Exercise, zh: bool) -> str:
    """The bytes rule, with each case's bound and how a message's bytes are counted."""
    bounds = [(c.name, c.world_size,
               _bytes(exercise.grader.bytes_bound(c.params, c.world_size)))
              for c in exercise.cases]
    if zh:
        return ("* **字节。** 每个 rank 在被评测的调用中发送的字节数不得超过上限（按 rank "
                "列出时从 rank 0 开始），否则结果正确也判为 `over_budget`。各用例的上限："
                f"{_case_list(bounds, zh)} 字节。{_charge(exercise, zh)}")
    return ("* **Bytes.** Each rank may send at most its bound in the graded call (per "
            "rank from rank 0 where a list is given); a correct result over it is "
            f"`over_budget`. Bounds per case: {_case_list(bounds, zh)} bytes. "
            f"{_charge(exercise, zh)}")


def _messages(exercise: Exercise, zh: bool) -> str | None:
    """The message (step) rule, with each case's bound; None for an exercise without one."""
    if exercise.messages is None:
        return None
    counts = [(c.name, c.world_size, str(exercise.messages(c.world_size, c.params)))
              for c in exercise.cases]
    what, what_zh = exercise.messages.algorithm
    formula = exercise.messages.bound.formula
    noun = "step" if formula == "1" else "steps"
    formula = f"`{formula}`"
    return (f"* **消息数。** 每个 rank 最多走 {formula} 步（{what_zh}所需）：上一条发往同一"
            "对端的消息仍在传输时发出的非空消息与它同属一步（流水线的分段），等它完成后才"
            "发出的消息、每条空消息各算一步；超过判为 "
            f"`over_budget`。各用例：{_case_list(counts, zh)}。" if zh else
            f"* **Messages.** Each rank may take at most {formula} {noun} (what {what} "
            "needs): a non-empty message sent to a peer while the previous one to it is in "
            "flight is part of the same step (a pipeline's segments); one sent after "
            "waiting for it, and every empty message, is a step of its own; more is "
            f"`over_budget`. Per case: {_case_list(counts, zh)}.")


def _floor(exercise: Exercise, zh: bool) -> str | None:
    """The floor rule; None where the floor is zero or absent."""
    floor = exercise.model.floor
    if floor is None or (floor.time.formula, floor.bytes.formula) == ("0", "0"):
        return None
    return (f"* **下限。** 建模时间低于 `{floor.time.formula}` 或最忙 rank 的字节数低于 "
            f"`{floor.bytes.formula}` 的运行属于测量遗漏：会被标记，不参与排名。" if zh else
            f"* **Floor.** A run whose modelled time is under `{floor.time.formula}` or "
            f"whose busiest rank sent under `{floor.bytes.formula}` bytes was "
            "mis-measured: it is flagged and never ranked.")


def _results(zh: bool) -> str:
    """The results rule: the tolerance per dtype."""
    f32, f64 = _tolerance("float32"), _tolerance("float64")
    return (f"* **结果。** float32 元素的容差为 {f32}，float64 为 {f64}（相对和绝对），整数须"
            "完全相等。" if zh else
            f"* **Results.** Elements are compared within {f32} for float32 and {f64} for "
            "float64 (relative and absolute); integers exactly.")


def _limits(exercise: Exercise, zh: bool) -> str:
    """The limits rule: a case's time limit and output limit."""
    limit = f"{exercise.time_limit_s:g}"
    return (f"* **限制。** 每个用例限时 {limit} 秒，输出至多 {exercise.output_limit_bytes} "
            "字节。" if zh else
            f"* **Limits.** Each case has a {limit} s time limit and at most "
            f"{exercise.output_limit_bytes} bytes of output.")


def rules_section(exercise: Exercise, lang: str) -> str:
    """The generated ``## Rules`` section of ``exercise``'s statement in ``lang`` (en, zh)."""
    zh = lang == "zh"
    time = _time(exercise, zh) if exercise.model.time_bound is not None else None
    rules = [_calls(exercise, zh), _byte_bounds(exercise, zh), _messages(exercise, zh), time,
             _floor(exercise, zh), _results(zh), _limits(exercise, zh)]
    intro = ("以下规则由本题的 `exercise.toml` 生成，正是评测机检查的内容。" if zh else
             "Generated from the exercise's `exercise.toml`: exactly what the judge checks.")
    lines = [HEADINGS["zh" if zh else "en"], "", intro, "", *(rule for rule in rules if rule is not None)]
    return "\n".join(lines) + "\n"
