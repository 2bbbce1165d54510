"""Trusted grading code for alltoall-p2p: inputs, the exchanged blocks, bound, diagnosis."""

from __future__ import annotations

import random

from cjudge import checkers


def make_inputs(params: dict, world: int, rng: random.Random) -> list[dict]:
    """Every rank's n blocks of k values, all distinct and exact in float32, so that every
    element can be recognised wherever it lands."""
    width = world * int(params["k"])
    values = [v / 4 for v in rng.sample(range(1, 1 << 22), world * width)]
    return [{"shape": [width], "dtype": params["dtype"], "data": values[r * width:(r + 1) * width]}
            for r in range(world)]


def example_inputs(params: dict, world: int) -> list[dict]:
    """The statement's example, the sample case: rank r holds [10r, 10r+1, …] (n·k values, k = 1
    in the statement: each value names its rank and place)."""
    width = world * int(params["k"])
    return [{"shape": [width], "dtype": params["dtype"],
             "data": [10.0 * r + i for i in range(width)]} for r in range(world)]


def expected(params: dict, world: int, inputs: list[dict]) -> list[dict]:
    """Block i of rank r's output is block r of rank i's input."""
    k = int(params["k"])
    return [{"shape": [world * k], "dtype": params["dtype"],
             "data": [v for i in range(world) for v in inputs[i]["data"][r * k:(r + 1) * k]]}
            for r in range(world)]


def bytes_bound(params: dict, world: int, itemsize: int) -> int:
    """Exactly the n−1 blocks meant for the other ranks; a rank's own block stays home."""
    return (world - 1) * int(params["k"]) * itemsize



def needs(params: dict, world: int, inputs: list[dict], rank: int,
          calls: list[dict]) -> tuple[str, str] | None:
    """Over budget: rank p needs only block p of the rank's x."""
    return checkers.blocks_needed(params, world, rank, calls, ("x", "输入张量 x"))


def diagnose(params: dict, world: int, inputs: list[dict], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Say which rank's block was found where another was expected."""
    k = int(params["k"])
    block, i = divmod(index, k)
    for src, inp in enumerate(inputs):
        if got in inp["data"]:
            b, j = divmod(inp["data"].index(got), k)
            empty = (" or a 0 never overwritten", "，或是从未写入的 0") if got == 0 else ("", "")
            return (f"block {block} should be block {rank} of rank {block}'s x, but element {i} "
                    f"of it is element {j} of block {b} of rank {src}'s x{empty[0]}",
                    f"第 {block} 块应为 rank {block} 的 x 的第 {rank} 块，但其第 {i} 个元素是 "
                    f"rank {src} 的 x 的第 {b} 块的第 {j} 个元素{empty[1]}")
    return (f"block {block} should be block {rank} of rank {block}'s x, but element {i} of it "
            "is no rank's input: was this block ever received?",
            f"第 {block} 块应为 rank {block} 的 x 的第 {rank} 块，但其第 {i} 个元素不是任何 "
            "rank 的输入：这一块收到过吗？")
