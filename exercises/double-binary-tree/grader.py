"""Trusted grading code for double-binary-tree: inputs, the sum, each rank's byte bound from
the two trees, diagnosis."""

from __future__ import annotations

import math
from typing import Any

from cjudge.kit.case import Case, MessageReader
from cjudge.kit.families import SumToAll
from cjudge.kit.pieces import chunk_reader as sum_reader
from cjudge.kit.pieces import contributions, torch_chunks


def btree(n: int, r: int) -> tuple[int, list[int]]:
    """NCCL's binary tree on ranks 0..n-1 (rank 0 is the root): (parent or -1, children); the
    statement's and the starter's ``btree``."""
    bit = 1
    while bit < n and not bit & r:
        bit <<= 1
    if r == 0:
        return -1, [bit >> 1] if n > 1 else []
    up = (r ^ bit) | (bit << 1)
    if up >= n:
        up = r ^ bit
    low = bit >> 1
    kids = [r - low] if low else []
    while low and r + low >= n:
        low >>= 1
    if low:
        kids.append(r + low)
    return up, kids


def double_tree(n: int, r: int) -> list[tuple[int, list[int]]]:
    """Rank r's (parent, children) in tree 0 and in tree 1 (mirrored, or shifted when n is odd)."""
    def move(x: int) -> int:
        return (x + 1) % n if n % 2 else n - 1 - x
    parent, kids = btree(n, (r - 1) % n if n % 2 else n - 1 - r)
    return [btree(n, r), (-1 if parent < 0 else move(parent), [move(k) for k in kids])]


def _halves(numel: int) -> list[int]:
    """The sizes of ``t.chunk(2)``: ⌈N/2⌉ and the rest."""
    first = math.ceil(numel / 2)
    return [first, numel - first]


#: exact inputs, the statement's example whose digits count the ranks, every rank the sum
ALL_REDUCE = SumToAll("numel")
make_inputs = ALL_REDUCE.make_inputs
example_inputs = ALL_REDUCE.example_inputs
expected = ALL_REDUCE.expected


def bytes_bound(case: Case) -> int:
    """The busiest rank's bytes in the two trees: in each, its half once up to its parent and
    once down to each child (2S on 8 ranks: an inner node of one tree is a leaf of the other)."""
    halves = _halves(case["numel"])
    return case.itemsize * max(sum(size * ((parent >= 0) + len(kids))
                                   for size, (parent, kids) in zip(halves, double_tree(case.world, r),
                                                                   strict=True))
                               for r in range(case.world))


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Which tree carries the element, and whose contributions it lacks or doubles."""
    parts = [i["data"][index] for i in inputs]
    tree = 0 if index < _halves(case["numel"])[0] else 1
    said = contributions(got, parts, f"the element (half {tree}, carried by tree {tree})",
                         f"该元素（第 {tree} 半，由树 {tree} 传送）")
    if said is None and got == parts[rank]:
        return ("the element still holds this rank's own input: its half never came back down "
                f"tree {tree}", f"该元素仍是本 rank 的输入：它所在的一半没有沿树 {tree} 传回")
    return said


def _pieces(case: Case) -> list[tuple[int, int]]:
    """The [start, end) of every piece: each half's ``chunk(chunks)``, half 0's first."""
    first, second = _halves(case["numel"])
    k = case["chunks"]
    return (torch_chunks(first, k)
            + [(first + lo, first + hi) for lo, hi in torch_chunks(second, k)])


def chunk_of(case: Case, index: int) -> int:
    """The piece that holds element ``index`` (for the trace view)."""
    return next(c for c, (lo, hi) in enumerate(_pieces(case)) if lo <= index < hi)


def chunk_reader(case: Case, inputs: list[dict[str, Any]]) -> MessageReader:
    """Which piece a message carries and whose contributions it sums (the trace view)."""
    return sum_reader(inputs, _pieces(case), noun=("piece", "片"))
