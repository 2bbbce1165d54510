"""A collective's input of the wrong size where the reference pads: an argument of N elements,
N not a multiple of n, cut to n·⌊N/n⌋ elements (its tail dropped) or passed whole, where the
reference's input is padded to n·⌈N/n⌉."""

from __future__ import annotations

from typing import Any

from ...contract.protocol import CaseSpec
from ...contract.values import is_tensor
from .said import Cause
from .sources import arguments


def _bare(spec: CaseSpec, rank: int, exercise: Any) -> list[tuple[str, list[Any]]]:
    """The rank's input as its first parameter, where it is one tensor (an in-place ``t``)."""
    given = spec["inputs"][rank]
    return [(exercise.parameters[0], given["data"])] if is_tensor(given) else []


def unpadded(got: int, want: int, spec: CaseSpec, rank: int, exercise: Any) -> Cause | None:
    """Why a collective's input has ``got`` elements where the reference's has ``want``: an
    argument that does not divide by n, truncated or unpadded; None if no argument says so."""
    n = spec["world_size"]
    for name, data in arguments(spec, rank, exercise) or _bare(spec, rank, exercise):
        size = len(data)
        if n < 2 or not size % n:
            continue
        per = -(-size // n)
        if want != n * per or got not in (n * (size // n), size):
            continue
        did, did_zh = (f"which drops its last {size % n}", f"丢掉了最后 {size % n} 个元素") \
            if got < size else ("which n does not divide", "不能被 n 整除")
        return Cause(
            f"its input has {got} elements where the reference's has {want}: {name} has "
            f"N = {size} elements, not a multiple of n = {n}, and yours holds {got}, {did}; pad "
            f"to ⌈N/n⌉ = {per} elements per rank (a zero tensor of n·⌈N/n⌉ = {want} holding "
            f"{name}), and copy the first N back",
            f"它的输入有 {got} 个元素，而参考解的有 {want} 个：{name} 有 N = {size} 个元素，不是 "
            f"n = {n} 的倍数，你的输入有 {got} 个，{did_zh}；应补齐到每个 rank ⌈N/n⌉ = {per} 个元素"
            f"（一个 n·⌈N/n⌉ = {want} 个元素的零张量，装入 {name}），最后再复制回前 N 个",
            named=True)
    return None
