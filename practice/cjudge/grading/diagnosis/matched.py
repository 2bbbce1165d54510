"""When every exchange matched the reference's: what the run still shows about the fault.

Every message (or collective call) carried what the reference's carries, so each rank received
all it needed. If a rank's wrong elements still hold its own input, the received values went
somewhere else (a clone, a new tensor), and the element guess from the result ("never
reduced") is contradicted: it is replaced. Otherwise the guess is kept: it says where the values
went wrong after they arrived.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...contract import values
from ...contract.primitives import call_name
from ...contract.protocol import CaseSpec, RawCase
from ...switch.trace import SwitchTrace
from ..compare import compare
from .said import algorithm
from .structure import structural

#: calls a rank received values through, named in the message, at most
NAMED = 3


def kept_own_input(exercise: Any, spec: CaseSpec, raw: RawCase) -> tuple[int, bool] | None:
    """The first rank whose wrong elements all still hold its own input (rank, False), or all
    still hold 0 as the tensor was made (rank, True); None if no rank's do."""
    wants = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    for report, want, mine in zip(raw["ranks"], wants, spec["inputs"], strict=True):
        got = report["output"]
        if not (values.is_tensor(got) and values.is_tensor(want)) or got["shape"] != want["shape"]:
            continue
        wrong = [i for i, (g, w) in enumerate(zip(got["data"], want["data"], strict=True))
                 if not values.element_matches(g, w, want["dtype"])]
        if not wrong:
            continue
        if values.is_tensor(mine) and mine["shape"] == got["shape"] and \
                all(got["data"][i] == mine["data"][i] for i in wrong):
            return int(report["rank"]), False
        if all(got["data"][i] == 0 for i in wrong):
            return int(report["rank"]), True
    return None


def _scaled(exercise: Any, spec: CaseSpec, raw: RawCase) -> tuple[int, str, str] | None:
    """The first wrong rank whose result is the expected one divided or multiplied by the world
    size throughout: (rank, English, Chinese), or None."""
    world = spec["world_size"]
    wants = exercise.grader.expected(spec["params"], world, spec["inputs"])
    for report, want in zip(raw["ranks"], wants, strict=True):
        got = report["output"]
        if world < 2 or not (values.is_tensor(got) and values.is_tensor(want)) or \
                got["shape"] != want["shape"] or got["data"] == want["data"]:
            continue
        pairs = list(zip(got["data"], want["data"], strict=True))
        for factor, en, zh in (
                (1 / world, f"divided by n = {world} (a mean)", f"除以了 n = {world}（平均值）"),
                (world, f"multiplied by n = {world}", f"乘以了 n = {world}")):
            if all(values.close(g, w * factor, 1e-5, 1e-6) for g, w in pairs):
                return int(report["rank"]), en, zh
    return None


def _number_lists(value: Any, path: str = "") -> Iterator[tuple[str, list[int | float]]]:
    """Every list of plain numbers in a value (a returned count list), with its path."""
    items = value if isinstance(value, list) else value.get("tuple") \
        if isinstance(value, dict) else None
    if not isinstance(items, list):
        return
    if items and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        yield path, items
        return
    for i, item in enumerate(items):
        yield from _number_lists(item, f"{path}[{i}]")


def _regrouped(exercise: Any, spec: CaseSpec, raw: RawCase) -> tuple[int, str, str] | None:
    """The first rank returning a list of numbers with one entry per rank where it should hold
    another count of entries with the same total: the same counts, grouped by rank."""
    world = spec["world_size"]
    wants = exercise.grader.expected(spec["params"], world, spec["inputs"])
    for report, want in zip(raw["ranks"], wants, strict=True):
        got = dict(_number_lists(report["output"]))
        for path, expect in _number_lists(want):
            mine = got.get(path)
            if mine is not None and len(mine) == world != len(expect) and \
                    values.close(sum(mine), sum(expect), 1e-9, 1e-9):
                return (int(report["rank"]),
                        f"the return value{path} is {mine}, one entry per rank, with the same total "
                        f"({sum(expect)}) as the expected {expect}: the right counts, grouped by "
                        "rank instead of as the result's entries are",
                        f"返回值{path}为 {mine}，每个 rank 一项，总和（{sum(expect)}）与应得的 "
                        f"{expect} 相同：计数本身没错，却按 rank 分组，而不是按结果要求的条目分组")
    return None


def _first_wrong_rank(exercise: Any, spec: CaseSpec, raw: RawCase) -> int | None:
    """The first rank, in rank order, whose result is wrong (the one the message names)."""
    wants = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])
    for report, want in zip(raw["ranks"], wants, strict=True):
        if report["state"] == "returned" and \
                compare(exercise, spec, report["rank"], report["output"], want):
            return int(report["rank"])
    return None


def _structural(exercise: Any, spec: CaseSpec, raw: RawCase,
                rank: int | None) -> tuple[str, str] | None:
    """What the wrong rank's result is by its structure (:mod:`.structure`), or None."""
    if rank is None:
        return None
    want = exercise.grader.expected(spec["params"], spec["world_size"], spec["inputs"])[rank]
    return structural(raw["ranks"][rank]["output"], want, spec["world_size"])


def _through(trace: SwitchTrace, rank: int, collective: bool) -> tuple[str, str]:
    """" (rank 0 through its all_reduce at lines 18, 24)": the calls (``collective``) or
    receives whose right values the rank's wrong result was made from, by their lines."""
    lines: dict[str, list[int]] = {}
    for req in sorted(trace["requests"], key=lambda r: r["posted"]):
        carries = req["kind"] not in ("send", "recv", "barrier") if collective \
            else req["kind"] == "recv"
        if req["graded"] and req["rank"] == rank and carries and req["line"]:
            at = lines.setdefault(call_name(req["api"], req["kind"]), [])
            if req["line"] not in at:
                at.append(req["line"])
    named = list(lines.items())[:NAMED]
    if not named:
        return "", ""
    en = " and ".join(f"{api} at line{'s' if len(at) > 1 else ''} "
                      f"{', '.join(map(str, at[:NAMED]))}" for api, at in named)
    zh = "、".join(f"第 {'、'.join(map(str, at[:NAMED]))} 行的 {api}" for api, at in named)
    return f" (rank {rank} through its {en})", f"（rank {rank} 通过{zh} 收到）"


def matched(exercise: Any, spec: CaseSpec, raw: RawCase,
            collective: bool) -> tuple[tuple[str, str], bool]:
    """The cause when every message (``collective``: collective call) matched the reference's,
    and whether the element guess stays."""
    algo, algo_zh = algorithm(exercise)
    what, what_zh = ("collective call", "集合通信调用") if collective else ("message", "消息")
    rank = _first_wrong_rank(exercise, spec, raw)
    at, at_zh = _through(raw["trace"], rank, collective) if rank is not None else ("", "")
    head = (f"every {what} matched {algo}'s, step for step, so each rank received all it "
            f"needed{at}",
            f"每条{what_zh}都与{algo_zh}逐步一致，每个 rank 都收到了所需的全部数据{at_zh}")
    kept = kept_own_input(exercise, spec, raw)
    if kept is not None:
        rank, zeros = kept
        into, into_zh = ("the tensor it was given", "传入的张量") if exercise.output == "inplace" \
            else ("the result it returns", "返回的结果")
        held, held_zh = ("0, as the tensor was made", "创建时的 0") if zeros else \
            (f"rank {rank}'s own input", "它自己的输入")
        return ((f"{head[0]}; yet where rank {rank}'s result is wrong it still holds {held}: what "
                 f"it received was added or written into a copy (a clone, a new tensor), never "
                 f"into {into}",
                 f"{head[1]}；但 rank {rank} 的结果在出错的位置上仍是{held_zh}：收到的值被加到或"
                 f"写进了一个副本（clone 或新张量），从未写入{into_zh}"), False)
    regrouped = _regrouped(exercise, spec, raw)
    if regrouped is not None:
        _, en, zh = regrouped
        return (f"{head[0]}; yet {en}", f"{head[1]}；但{zh}"), False
    scaled = _scaled(exercise, spec, raw)
    if scaled is not None:
        rank, en, zh = scaled
        return ((f"{head[0]}; yet rank {rank}'s whole result is the expected one {en}: the values "
                 "were right, and then scaled",
                 f"{head[1]}；但 rank {rank} 的整个结果是正确结果{zh}：值本来是对的，之后又被缩放了"),
                False)
    shaped = _structural(exercise, spec, raw, rank)
    if shaped is not None:
        return (f"{head[0]}; yet rank {rank}'s result: {shaped[0]}",
                f"{head[1]}；但 rank {rank} 的结果：{shaped[1]}"), False
    return ((f"{head[0]}; the fault is in what your code did with the values it received: where "
             "it added or wrote them, or what it returned",
             f"{head[1]}；错误在于你的代码如何处理收到的值：把它们加到或写到了哪里，或者返回了什么"),
            True)
