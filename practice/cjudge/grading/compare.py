"""A rank's result against its expected value, the way the exercise grades it: the first
difference (:class:`~.facts.WrongAnswer`: where, the grader's guess from that element, the wrong
chunks by rank), or None when every rank's result matches."""

from __future__ import annotations

import logging
import math
import operator
from collections.abc import Callable
from typing import Any, TypeVar

from ..contract import values
from ..contract.protocol import CaseSpec, RankReport, RawCase, TensorData
from ..contract.units import plural
from ..exercise.exercises import Exercise
from .chunks import summary
from .facts import WrongAnswer
from .root_zero import root_zero

#: a grader's hook that failed is logged here (the learner is never blamed for it)
log = logging.getLogger(__name__)


def _fmt(x: Any) -> str:
    if isinstance(x, int) and x not in values.INT_RANGE:  # its digits may be refused, or many
        return f"{'-' if x < 0 else ''}~1e{int(math.log10(abs(x)))}"
    return f"{x:.10g}" if isinstance(x, float) else repr(x) if isinstance(x, str) else str(x)


#: what a grader's hook says (words, or a chunk summary)
Said = TypeVar("Said")


def said_by(hook: Callable[..., Said | None], *args: Any, **kwargs: Any) -> Said | None:
    """What a grader's ``hook`` says about a wrong answer, or nothing should it fail: a
    diagnosis is dropped, never the verdict (the failure is logged for the exercise's author)."""
    try:
        return hook(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a grader's bug on a learner's result must not cost a verdict
        log.exception("%s: dropped a diagnosis that failed", getattr(hook, "__qualname__", hook))
        return None


def compare(exercise: Exercise, spec: CaseSpec, rank: int, got: Any,
             want: Any) -> WrongAnswer | None:
    """None if ``got`` matches ``want`` (values: tensors, numbers, lists, tuples), else a
    learner-facing explanation of the first difference."""
    what, what_zh = _result_name(exercise)
    for path, g, w in values.walk_pairs(got, want):
        where = f"case {spec['name']}, rank {rank}" + (f", {what}{path}" if path else "")
        where_zh = f"用例 {spec['name']}，rank {rank}" + (f"，{what_zh}{path}" if path else "")
        if values.is_tensor(w):
            wrong = _compare_tensor(exercise, spec, rank, g, w, where, where_zh, path, what)
        else:
            wrong = _compare_other(g, w, where, where_zh, what)
            if wrong and not path and _asks_about_numbers(exercise, w):
                why = said_by(exercise.grader.diagnose, spec["params"], spec["world_size"],
                                 spec["inputs"], rank, 0, g, path="")  # a returned number
                wrong = wrong._replace(hint=why)
        if wrong:
            return wrong
    return None


def _result_name(exercise: Exercise) -> tuple[str, str]:
    """What holds the result, (English, Chinese): the parameter the function leaves it in
    (``grads`` of ``sync_grads(grads, bucket_bytes)``), or the return value."""
    if exercise.output == "inplace":
        name = exercise.parameters[0]
        if name.isidentifier():
            return name, name
        return "the argument", "参数"
    return "the return value", "返回值"


def _takes_path(exercise: Exercise) -> bool:
    """Whether the grader's ``diagnose`` takes ``path``: written for results other than one
    tensor (only such a grader is asked about a nested element or a returned number)."""
    return exercise.grader.takes_path


def _asks_about_numbers(exercise: Exercise, want: Any) -> bool:
    """Whether a wrong returned number goes to the grader's ``diagnose`` (index 0)."""
    return isinstance(want, (int, float)) and not isinstance(want, bool) and _takes_path(exercise)


def _compare_other(got: Any, want: Any, where: str, where_zh: str,
                   what: str) -> WrongAnswer | None:
    """A difference in structure or in a number (relative tolerance 1e-6 for floats)."""
    if isinstance(want, dict) and want.get("any"):  # the grader does not look here
        return None
    if not values.same_structure(got, want) or values.is_tensor(got) != values.is_tensor(want):
        (is_, is_zh), (wants, wants_zh) = values.describe(got), values.describe(want)
        return WrongAnswer((f"{where}: {what} is {is_}, expected {wants}",
                            f"{where_zh}：结果是{is_zh}，应为{wants_zh}"))
    number = (int, float)
    if isinstance(want, float) and isinstance(got, number) and not isinstance(got, bool):
        if values.close(got, want, 1e-6, 1e-12):
            return None
    elif got == want and type(got) is type(want):
        return None
    return WrongAnswer((f"{where}: expected {_fmt(want)}, got {_fmt(got)}",
                        f"{where_zh}：应为 {_fmt(want)}，实际为 {_fmt(got)}"))


def _compare_tensor(exercise: Exercise, spec: CaseSpec, rank: int, got: Any, want: TensorData,
                    where: str, where_zh: str, path: str,
                    what: str) -> WrongAnswer | None:
    if not values.is_tensor(got):
        return WrongAnswer((f"{where}: {what}{path} is not a tensor", f"{where_zh}：结果不是张量"))
    if list(got["shape"]) != list(want["shape"]):
        en, zh = (f"{where}: shape {tuple(got['shape'])}, expected {tuple(want['shape'])}",
                  f"{where_zh}：形状为 {tuple(got['shape'])}，应为 {tuple(want['shape'])}")
        hook = getattr(exercise.grader, "diagnose_shape", None)  # what the shape means, in words
        why = said_by(hook, spec["params"], spec["world_size"], rank, list(got["shape"]),
                         path) if hook else None
        return WrongAnswer((f"{en}: {why[0]}", f"{zh}：{why[1]}") if why else (en, zh))
    if got["dtype"] != want["dtype"]:
        return WrongAnswer((f"{where}: dtype {got['dtype']}, expected {want['dtype']}",
                            f"{where_zh}：dtype 为 {got['dtype']}，应为 {want['dtype']}"))
    dtype = want["dtype"]
    if len(got["data"]) == len(want["data"]) and all(map(operator.eq, got["data"], want["data"])):
        return None  # every element equal: no tolerance to apply
    for index, (g, w) in enumerate(zip(got["data"], want["data"], strict=True)):
        if values.element_matches(g, w, dtype):
            continue
        wrong = sum(1 for a, b in zip(got["data"], want["data"], strict=True)
                    if not values.element_matches(a, b, dtype))
        en = (f"{where}: first wrong element at index {index}: expected {_fmt(w)}, got {_fmt(g)} "
              f"({wrong} of {plural(len(want['data']), 'element')} wrong)")
        zh = (f"{where_zh}：第一个错误元素在下标 {index}：应为 {_fmt(w)}，实际为 {_fmt(g)}"
              f"（共 {len(want['data'])} 个元素中 {wrong} 个错误）")
        return WrongAnswer((en, zh), _diagnose(exercise, spec, rank, index, g, path))
    return None


def _diagnose(exercise: Exercise, spec: CaseSpec, rank: int, index: int, got: Any,
              path: str) -> tuple[str, str] | None:
    """The grader's ``diagnose`` of a wrong element; inside a nested result only a grader whose
    ``diagnose`` takes ``path`` (e.g. "[0][2]") is asked."""
    diagnose = exercise.grader.diagnose
    if not path:
        return said_by(diagnose, spec["params"], spec["world_size"], spec["inputs"], rank,
                          index, got)
    if not _takes_path(exercise):
        return None
    return said_by(diagnose, spec["params"], spec["world_size"], spec["inputs"], rank, index,
                      got, path=path)


def first_difference(exercise: Exercise, spec: CaseSpec, raw: RawCase,
                 wants: list[Any]) -> RankReport | WrongAnswer | None:
    """In rank order, the first rank that did not return (its report) or whose result differs
    from ``wants`` (the difference, with the summary of wrong chunks); None if all match."""
    for report, want in zip(raw["ranks"], wants, strict=True):
        if report["state"] != "returned":
            return report
        wrong = compare(exercise, spec, report["rank"], report["output"], want)
        if wrong:
            root = root_zero(exercise.builtin, spec["params"], raw["trace"])  # assumed rank 0
            if root is not None:
                wrong = wrong._replace(where=(f"{wrong.where[0]}. {root[0][0].upper()}"
                                              f"{root[0][1:]}", f"{wrong.where[1]}。{root[1]}"))
            return wrong._replace(summary=said_by(
                summary, spec["params"], spec["world_size"], [r["output"] for r in raw["ranks"]],
                wants, exercise.grader))
    return None
