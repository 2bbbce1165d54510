"""A wrong result compared with the expected one by its structure, when every exchange
matched: its rows, blocks or listed tensors in reverse order, one factor throughout, or where a
NaN or an infinity first appears. Each reading is exact (checked on every element), or left out."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...contract import values
from .values import shown


def _blocks(data: list[Any], count: int) -> list[list[Any]] | None:
    """``data`` cut into ``count`` equal blocks; None where it does not divide."""
    if count < 2 or len(data) % count:
        return None
    size = len(data) // count
    return [data[i * size:(i + 1) * size] for i in range(count)]


def _close(a: list[Any], b: list[Any], dtype: str) -> bool:
    """Whether two element lists are equal at the tolerance of ``dtype``."""
    return len(a) == len(b) and all(values.element_matches(x, y, dtype)
                                    for x, y in zip(a, b, strict=True))


def reversed_blocks(got: Any, want: Any, world: int) -> tuple[str, str] | None:
    """"its rows in reverse order": the result's rows (or its n blocks) are the expected ones,
    last first."""
    dtype = want["dtype"]
    rows = want["shape"][0] if want["shape"] else 0
    for count, what, what_zh in ((rows, "rows", "行"), (world, f"{world} blocks", f"{world} 块")):
        mine, theirs = _blocks(got["data"], count), _blocks(want["data"], count)
        if mine is None or theirs is None or _close(mine, theirs, dtype):
            continue
        if _close([v for b in mine[::-1] for v in b], want["data"], dtype):
            return (f"it holds the expected {what} in reverse order (the last one first): split "
                    "back in the order they were put together",
                    f"它包含的是应得结果的{what_zh}，但顺序颠倒（最后一个在最前）：请按拼接时的顺序拆回")
    return None


def one_factor(got: Any, want: Any, world: int) -> tuple[str, str] | None:
    """"every element is 0.5 times the expected one": one factor, other than 1, throughout;
    named where it is √((d − 1)/d) for rows of d (a row normalised by the unbiased variance),
    said as a scale where it is a ratio of numbers up to the world size, else None (values
    mixed up, not scaled: the grader's reading of the element says more)."""
    pairs = [(g, w) for g, w in zip(got["data"], want["data"], strict=True) if w]
    if not pairs or any(not g for g, w in pairs) or len(pairs) != len(want["data"]):
        return None
    factor = pairs[0][0] / pairs[0][1]
    if values.close(factor, 1.0, 1e-6, 0.0) or \
            not all(values.close(g, w * factor, 1e-5, 1e-9) for g, w in pairs):
        return None
    f = shown(float(factor))
    row = want["shape"][-1] if want["shape"] else 0
    if row > 1 and values.close(factor * factor, (row - 1) / row, 1e-5, 0.0):
        return (f"every element is {f} = √(({row} − 1)/{row}) times the expected one: each row of "
                f"{row} was normalised by a variance divided by {row} − 1 (torch.var's default, "
                f"unbiased) where it is divided by {row}: use var(unbiased=False)",
                f"每个元素都是应得值的 {f} = √(({row} − 1)/{row}) 倍：每行 {row} 个元素归一化时用的方差"
                f"除以了 {row} − 1（torch.var 默认的无偏方差），而应当除以 {row}：请用 "
                "var(unbiased=False)")
    if not _simple(factor, max(world, 2)):
        return None  # not a scale code applies (11, 1110/1111): values mixed up, not scaled
    return (f"every element is {f} times the expected one: a scale applied once too often, or a "
            "rescale left out",
            f"每个元素都是应得值的 {f} 倍：多乘了一次缩放因子，或漏掉了一次重新缩放")


def _simple(factor: float, most: int) -> bool:
    """Whether ``factor`` is a ratio of whole numbers up to ``most`` (the world size: n, 1/n,
    2, 3/8), as a scale in code is; not 11 or 1110/1111, which sums of the wrong values give."""
    if not math.isfinite(factor) or factor == 0:
        return False
    near = Fraction(factor).limit_denominator(most)
    return abs(near.numerator) <= most and values.close(float(near), factor, 1e-6, 0.0)


def first_non_finite(got: Any, want: Any) -> tuple[str, str] | None:
    """Where the first NaN or infinity is that the expected result does not have."""
    for i, (g, w) in enumerate(zip(got["data"], want["data"], strict=True)):
        if isinstance(g, float) and not math.isfinite(g) and \
                not (isinstance(w, float) and not math.isfinite(w)):
            row = f" (row {i // want['shape'][-1]})" if len(want["shape"]) > 1 else ""
            row_zh = f"（第 {i // want['shape'][-1]} 行）" if len(want["shape"]) > 1 else ""
            return (f"its first non-finite element is {g} at index {i}{row}, where the expected "
                    "result is finite: a value overflowed (an exp of large scores without the "
                    "running maximum subtracted?) or was divided by zero",
                    f"它的第一个非有限元素是下标 {i}{row_zh} 处的 {g}，而应得结果是有限值：某个值溢出"
                    "（对较大的分数取 exp 前没有减去当前最大值？）或除以了零")
    return None


def split_back_reversed(got: Any, want: Any) -> tuple[str, str] | None:
    """A list of tensors whose items a…b−1, concatenated last first, are the expected items
    concatenated in order: one flat buffer split back in reverse order."""
    if not (isinstance(got, list) and isinstance(want, list)) or len(got) != len(want) or \
            not all(values.is_tensor(t) for t in got + want):
        return None
    dtype = want[0]["dtype"]
    wrong = [i for i, (g, w) in enumerate(zip(got, want, strict=True))
             if not _close(g["data"], w["data"], dtype)]
    if not wrong:
        return None
    a = wrong[0]
    for b in range(a + 2, len(want) + 1):
        ours = [v for t in got[a:b][::-1] for v in t["data"]]
        if _close(ours, [v for t in want[a:b] for v in t["data"]], dtype):
            if (a, b) == (0, len(want)) and all(
                    _close(g["data"], w["data"], dtype) for g, w in zip(got, want[::-1], strict=True)):
                return None  # the whole list returned last first: its order, not a split
            return (f"items {a}…{b - 1} hold the expected values split back in reverse order: the "
                    f"flat buffer's first elements went to item {b - 1}; copy them back in the "
                    "order they were concatenated",
                    f"第 {a}…{b - 1} 项按相反的顺序从扁平缓冲区拆回（顺序颠倒）：缓冲区开头的元素进了第 "
                    f"{b - 1} 项；请按拼接时的顺序拷回")
    return None


def structural(got: Any, want: Any, world: int) -> tuple[str, str] | None:
    """The first reading of :func:`split_back_reversed`, :func:`first_non_finite`,
    :func:`reversed_blocks` and :func:`one_factor` that holds for the result, or None."""
    listed = split_back_reversed(got, want)
    if listed is not None:
        return listed
    if not (values.is_tensor(got) and values.is_tensor(want)) or got["shape"] != want["shape"] \
            or not want["data"]:
        return None
    return first_non_finite(got, want) or reversed_blocks(got, want, world) or \
        one_factor(got, want, world)
