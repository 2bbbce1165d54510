"""Trusted grading code for alpha-beta: the questions, their answers, and which slip explains a
wrong one.

Each case asks one function one question on one rank: ``modeled_time(algo, n, nbytes, alpha_s,
beta_Bps)`` (seconds) or ``busbw(op, n, nbytes, seconds)`` (GB/s, GB = 1e9 B). What a case's
parameters leave out is drawn from its seeded ``rng``, so the server's secret seed asks new
numbers. Bus bandwidth follows nccl-tests by the kernel's own ``busbw_factor`` and ``nccl_size``,
the ones ``judge.py model`` and ``judge.py bench`` report with.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from cjudge.contract.units import format_seconds, format_size
from cjudge.kit.case import Case
from cjudge.model.case import busbw_factor, nccl_size

ALGOS = ("ring", "recursive_doubling", "tree")
OPS = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce")


def _draw_n(algo: str, rng: random.Random) -> int:
    if algo == "recursive_doubling":
        return 1 << rng.randint(1, 6)
    if algo == "tree":  # not a power of two: ⌈log₂n⌉ differs from log₂n and ⌊log₂n⌋
        return rng.choice([k for k in range(3, 65) if k & (k - 1)])
    return rng.randint(3, 64)


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """The question: the case's fixed numbers, the rest drawn (sizes from 1 KB to 10 GB)."""
    ask = case.texts["ask"]
    name = case.texts["algo"] if ask == "modeled_time" else case.texts["op"]
    n = case["n"] if "n" in case.params else _draw_n(name, rng)
    nbytes = case["nbytes"] if "nbytes" in case.params else int(10 ** rng.uniform(3, 10))
    if ask == "modeled_time":
        alpha = float(case.params.get("alpha_s", rng.randint(10, 200) / 1e7))  # 1 to 20 µs
        beta = float(case.params.get("beta_Bps", rng.randint(10, 900) * 1e9))  # 10 to 900 GB/s
        call: list[Any] = [name, n, nbytes, alpha, beta]
    else:
        # a plausible time: nccl-tests' size at 5 to 500 GB/s, plus 5 to 50 µs
        seconds = float(case.params.get("seconds", nccl_size(name, n, nbytes)
                                        / (rng.randint(5, 500) * 1e9) + rng.randint(5, 50) * 1e-6))
        call = [name, n, nbytes, seconds]
    return [{"call": call, "functions": [ask]} for _ in range(case.world)]


def modeled_time(algo: str, n: int, nbytes: int, alpha: float, beta: float) -> float:
    """The statement's closed forms, in seconds."""
    if algo == "ring":  # ring all-reduce: 2(n−1) steps of one n-th of the tensor
        return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes / beta
    if algo == "recursive_doubling":  # all-reduce, n a power of two: log₂n whole-tensor swaps
        return math.log2(n) * (alpha + nbytes / beta)
    if algo == "tree":  # binomial-tree broadcast (or reduce): ⌈log₂n⌉ rounds of the tensor
        return math.ceil(math.log2(n)) * (alpha + nbytes / beta)
    raise ValueError(f"unknown algorithm {algo!r}")


def busbw(op: str, n: int, nbytes: int, seconds: float) -> float:
    """nccl-tests' bus bandwidth in GB/s: its size / time × the op's factor."""
    return nccl_size(op, n, nbytes) / seconds / 1e9 * busbw_factor(op, n)


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[float]:
    """The answer to the case's question, on its one rank."""
    answers = []
    for rank_input in inputs:
        fn = modeled_time if rank_input["functions"] == ["modeled_time"] else busbw
        answers.append(fn(*rank_input["call"]))
    return answers


def bytes_bound(case: Case) -> int:
    """Nothing to send: the answer is arithmetic."""
    return 0


def _ring_slips(n: int, s: float, a: float, b: float) -> list[tuple[float, str, str]]:
    return [
        ((n - 1) * a + (n - 1) / n * s / b,
         "that is one phase only: a ring all-reduce is a reduce-scatter and then an all-gather, "
         "2(n−1) steps and 2(n−1)/n · S bytes",
         "这只算了一个阶段：环形 all-reduce 是 reduce-scatter 加 all-gather，共 2(n−1) 步、"
         "2(n−1)/n · S 字节"),
        (2 * n * a + 2 * (n - 1) / n * s / b,
         "the latency term uses 2n steps instead of 2(n−1)",
         "延迟项用了 2n 步，应为 2(n−1) 步"),
        (n * a + 2 * (n - 1) / n * s / b,
         "the latency term uses n steps instead of 2(n−1)",
         "延迟项用了 n 步，应为 2(n−1) 步"),
        ((n - 1) * a + 2 * (n - 1) / n * s / b,
         "the latency term uses n − 1 steps instead of 2(n−1): both phases pay α per step",
         "延迟项用了 n − 1 步，应为 2(n−1) 步：两个阶段每一步都要付 α"),
        (2 * (n - 1) * a + 2 * s / b,
         "the bandwidth term sends 2S instead of 2(n−1)/n · S: each step moves one n-th of the "
         "tensor", "带宽项按 2S 计算，应为 2(n−1)/n · S：每一步只传张量的 n 分之一"),
        (2 * (n - 1) * a + 2 * (n - 1) * s / b,
         "the bandwidth term sends 2(n−1) · S: each of the 2(n−1) steps moves S / n, not S",
         "带宽项按 2(n−1) · S 计算：2(n−1) 步中每一步只传 S / n，而不是 S"),
        (2 * (n - 1) * a + (n - 1) / n * s / b,
         "the bandwidth term sends (n−1)/n · S, one phase's bytes; the ring sends 2(n−1)/n · S",
         "带宽项只算了一个阶段的 (n−1)/n · S；环形共发送 2(n−1)/n · S"),
    ]


def _log_slips(algo: str, n: int, s: float, a: float, b: float) -> list[tuple[float, str, str]]:
    steps = math.ceil(math.log2(n))
    slips = [
        ((n - 1) * (a + s / b),
         f"that is n − 1 = {n - 1} rounds, a chain; the algorithm takes ⌈log₂n⌉ = {steps}",
         f"这是 n − 1 = {n - 1} 轮（链式）；该算法只需 ⌈log₂n⌉ = {steps} 轮"),
        (steps * a + s / b,
         f"the bytes are counted once, but each of the {steps} rounds sends the whole tensor: "
         "⌈log₂n⌉ · S / β", f"字节只算了一次，但 {steps} 轮中每一轮都发送整个张量：⌈log₂n⌉ · S / β"),
        (steps * a, "the bandwidth term S / β is missing", "缺少带宽项 S / β"),
        (steps * s / b, "the latency term α per round is missing", "缺少每轮的延迟项 α"),
    ]
    if algo == "tree":
        slips += [
            (math.log2(n) * (a + s / b),
             f"log₂{n} = {math.log2(n):.3g} is not a whole number of rounds: round it up, "
             f"⌈log₂n⌉ = {steps}", f"log₂{n} = {math.log2(n):.3g} 不是整数轮：应向上取整，⌈log₂n⌉ = {steps}"),
            (math.floor(math.log2(n)) * (a + s / b),
             f"⌊log₂n⌋ = {math.floor(math.log2(n))} rounds reach only "
             f"{1 << math.floor(math.log2(n))} ranks; it takes ⌈log₂n⌉ = {steps}",
             f"⌊log₂n⌋ = {math.floor(math.log2(n))} 轮只能覆盖 {1 << math.floor(math.log2(n))} 个 "
             f"rank；需要 ⌈log₂n⌉ = {steps} 轮"),
        ]
    if algo == "recursive_doubling":
        slips.append((2 * steps * (a + s / b),
                      "that is 2 log₂n rounds; recursive doubling's log₂n swaps each leave both "
                      "partners with the sum, no second phase",
                      "这是 2 log₂n 轮；递归倍增的 log₂n 次交换之后双方都已得到和，没有第二阶段"))
    return slips


def _busbw_slips(op: str, n: int, s: float, t: float) -> list[tuple[float, str, str]]:
    size, factor = nccl_size(op, n, s), busbw_factor(op, n)
    slips = [
        (size / t / 1e9, f"that is the algorithm bandwidth; the bus bandwidth multiplies it by "
         f"{op}'s factor {factor:.4g}", f"这是算法带宽；总线带宽还要乘以 {op} 的系数 {factor:.4g}"),
        (size / t / 1e9 / factor if factor else math.nan,
         f"the algorithm bandwidth is divided by {op}'s factor {factor:.4g}; multiply instead",
         f"算法带宽被 {op} 的系数 {factor:.4g} 除了；应当相乘"),
        (size / t / 2**30 * factor, "GB here is 1e9 bytes, as in nccl-tests, not 2³⁰",
         "这里的 GB 是 1e9 字节（与 nccl-tests 相同），不是 2³⁰"),
        (size / t * factor, "that is bytes per second; busbw is in GB/s (1e9 B/s)",
         "这是字节每秒；busbw 的单位是 GB/s（1e9 B/s）"),
    ]
    if op == "all_gather":
        slips.append((s / t / 1e9 * factor,
                      f"nccl-tests' size for all_gather is the gathered output, n · nbytes = "
                      f"{format_size(n * s)}, not one rank's input",
                      f"nccl-tests 中 all_gather 的大小是收集后的输出 n · nbytes = "
                      f"{format_size(n * s)}，而不是单个 rank 的输入"))
    for other in ("all_reduce", "all_gather", "broadcast"):
        f2 = busbw_factor(other, n)
        if not math.isclose(f2, factor):
            slips.append((size / t / 1e9 * f2,
                          f"that uses the factor {f2:.4g} (as for {other}); {op}'s is {factor:.4g}",
                          f"用了系数 {f2:.4g}（{other} 的）；{op} 的系数是 {factor:.4g}"))
    return slips


def _question(call: list[Any], fn: str) -> tuple[str, str]:
    """The question a call asks, (English, Chinese)."""
    if fn == "modeled_time":
        algo, n, s, a, b = call
        values = f"n = {n}, S = {format_size(s)}, α = {format_seconds(a)}, β = {b / 1e9:g} GB/s"
        return f"{algo} at {values}", f"{algo}（{values}）"
    op, n, s, t = call
    values = f"n = {n}, nbytes = {format_size(s)}, {format_seconds(t)}"
    return f"{op} at {values}", f"{op}（{values}）"


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: object, path: str = "") -> tuple[str, str] | None:
    """Name the question and, when one explains the number, the slip: a wrong step count, a
    missing factor, a unit."""
    call, fn = inputs[rank]["call"], inputs[rank]["functions"][0]
    where, where_zh = _question(call, fn)
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return (f"{fn} must return a number (a float) for {where}",
                f"对 {where_zh}，{fn} 必须返回一个数（float）")
    want = (modeled_time if fn == "modeled_time" else busbw)(*call)
    if fn == "modeled_time":
        algo, n, s, a, b = call
        slips = _ring_slips(n, s, a, b) if algo == "ring" else _log_slips(algo, n, s, a, b)
        shown = format_seconds(want)
        for scale, unit in ((1e6, "microseconds"), (1e3, "milliseconds")):
            slips.append((want * scale, f"that is {unit}; return seconds",
                          f"这是{'微秒' if scale == 1e6 else '毫秒'}；应返回秒"))
    else:
        op, n, s, t = call
        slips = _busbw_slips(op, n, s, t)
        shown = f"{want:.4g} GB/s"
    close: Callable[[float], bool] = lambda v: math.isclose(got, v, rel_tol=1e-6)  # noqa: E731
    for value, en, zh in slips:
        if close(value):
            return f"{where} is {shown}: {en}", f"{where_zh} 应为 {shown}：{zh}"
    return f"{where} is {shown}", f"{where_zh} 应为 {shown}"
