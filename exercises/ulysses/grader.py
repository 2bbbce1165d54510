"""Trusted grading code for ulysses: sequence shards in, head shards out (and back), one
all_to_all_single per call, diagnosis by sequence position and head."""

from __future__ import annotations

import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.families import distinct_values

#: a case's `grade` -> the learner's functions the judge calls, in turn
CALLS = {"seq_to_heads": ["seq_to_heads"], "heads_to_seq": ["heads_to_seq"],
         "round_trip": ["seq_to_heads", "heads_to_seq"]}


#: the learner's function that makes the result -> how its all_to_all_single's blocks lie
BLOCKS = {
    "seq_to_heads": (
        "block p of what all_to_all_single sends must be rank p's heads of your positions (view "
        "x as [s/n, n, H/n, D], permute(1, 0, 2, 3), .contiguous()); block j received is rank "
        "j's positions, so the result is the received [n, s/n, H/n, D] read as [s, H/n, D]",
        "all_to_all_single 发出的第 p 块必须是你的各位置上 rank p 负责的头（把 x view 成 "
        "[s/n, n, H/n, D]，permute(1, 0, 2, 3)，再 .contiguous()）；收到的第 j 块是 rank j "
        "的各位置，所以结果就是把收到的 [n, s/n, H/n, D] 当作 [s, H/n, D]"),
    "heads_to_seq": (
        "block j of what all_to_all_single receives is your positions of rank j's heads: view "
        "the received buffer as [n, s/n, H/n, D] (the source rank first), permute(1, 0, 2, 3), "
        "then reshape to [s/n, H, D]",
        "all_to_all_single 收到的第 j 块是你的各位置上 rank j 负责的头：把接收缓冲区 view 成 "
        "[n, s/n, H/n, D]（来源 rank 在最前），permute(1, 0, 2, 3)，再 reshape 成 [s/n, H, D]"),
}


def _dims(case: Case) -> tuple[int, int, int, int, int]:
    """s, H, D and the shards: s/n positions and H/n heads per rank."""
    s, heads, dim = case["seq"], case["heads"], case["dim"]
    return s, heads, dim, s // case.world, heads // case.world


def _sharded_by_sequence(case: Case, rank: int) -> list[tuple[int, int, int]]:
    """(position, head, d) of each element of rank's [s/n, H, D] shard, in memory order."""
    _, heads, dim, local, _ = _dims(case)
    return [(rank * local + i, h, d) for i in range(local) for h in range(heads)
            for d in range(dim)]


def _sharded_by_heads(case: Case, rank: int) -> list[tuple[int, int, int]]:
    """(position, head, d) of each element of rank's [s, H/n, D] shard, in memory order."""
    s, _, dim, _, mine = _dims(case)
    return [(p, rank * mine + j, d) for p in range(s) for j in range(mine) for d in range(dim)]


def _layout(case: Case, rank: int, first: bool) -> list[tuple[int, int, int]]:
    """Where each element of rank's input (``first``) or result sits in the full [s, H, D]."""
    functions = CALLS[case.texts["grade"]]
    name = functions[0] if first else functions[-1]
    by_sequence = (name == "seq_to_heads") == first
    return (_sharded_by_sequence if by_sequence else _sharded_by_heads)(case, rank)


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """One value per (position, head, d) of the full [s, H, D] tensor, all distinct and exact in
    the case's dtype, each rank given its shard of it: by sequence for seq_to_heads and the round trip,
    by heads for heads_to_seq."""
    s, heads, dim, local, mine = _dims(case)
    values = distinct_values(s * heads * dim, case.dtype, rng)
    full = {}
    for p in range(s):
        for h in range(heads):
            for d in range(dim):
                full[p, h, d] = values[(p * heads + h) * dim + d]
    by_sequence = CALLS[case.texts["grade"]][0] == "seq_to_heads"
    shape = [local, heads, dim] if by_sequence else [s, mine, dim]
    inputs = []
    for r in range(case.world):
        data = [full[key] for key in _layout(case, r, True)]
        inputs.append({"call": [{"shape": shape, "dtype": case.dtype, "data": data}],
                       "functions": CALLS[case.texts["grade"]]})
    return inputs


def _full(case: Case, inputs: list[dict[str, Any]]) -> dict[tuple[int, int, int], float]:
    """The full tensor's values by (position, head, d), read back from the shards."""
    full: dict[tuple[int, int, int], float] = {}
    for r, inp in enumerate(inputs):
        full.update(zip(_layout(case, r, True), inp["call"][0]["data"], strict=True))
    return full


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each rank's shard of the same tensor in the result's layout, bit for bit."""
    s, heads, dim, local, mine = _dims(case)
    full = _full(case, inputs)
    by_heads = CALLS[case.texts["grade"]][-1] == "seq_to_heads"
    shape = [s, mine, dim] if by_heads else [local, heads, dim]
    return [{"shape": shape, "dtype": case.dtype,
             "data": [full[key] for key in _layout(case, r, False)]}
            for r in range(case.world)]


def bytes_bound(case: Case) -> int:
    """Each call's all-to-all keeps 1/n of the shard and sends the rest: (n−1)/n · S per call
    (S: the shard's bytes, the same size by sequence or by heads)."""
    s, heads, dim = case["seq"], case["heads"], case["dim"]
    shard = s * heads * dim // case.world * case.itemsize
    return len(CALLS[case.texts["grade"]]) * (case.world - 1) * shard // case.world


def check_traffic(case: Case, calls: list[dict[str, Any]]) -> tuple[str, ...] | None:
    """Exactly one all_to_all_single per function call on every rank, each a full exchange:
    (n−1)/n of the shard leaves the rank (in a round trip the second one too: returning the
    input kept from the first call is not an exchange). At one rank nothing moves: no call is
    needed."""
    functions = CALLS[case.texts["grade"]]
    want = len(functions)
    full = bytes_bound(case) // want
    for r in range(case.world):
        made = [c for c in calls if c["rank"] == r and c["op"] == "all_to_all"]
        if len(made) != want and (made or case.world > 1):
            which = " then ".join(functions)
            lines = ", ".join(str(x) for x in sorted({c["line"] for c in made if c["line"]}))
            at = f" (line {lines})" if lines else ""
            return (f"rank {r} made {len(made)} all_to_all_single calls{at} for {which}; "
                    f"Ulysses needs exactly one per function ({want} here)",
                    f"rank {r} 为 {which} 调用了 {len(made)} 次 all_to_all_single{at}；"
                    f"每个函数恰好一次（这里共 {want} 次）")
        short = next((i for i, c in enumerate(made) if c["bytes"] < full), None)
        if short is not None:
            return (f"rank {r}'s all_to_all_single call {short + 1} (line {made[short]['line']}) "
                    f"sent {made[short]['bytes']} bytes; each exchange of Ulysses sends (n−1)/n "
                    f"of the shard, {full} bytes: the data must travel in every call",
                    f"rank {r} 的第 {short + 1} 次 all_to_all_single（第 {made[short]['line']} "
                    f"行）只发送了 {made[short]['bytes']} 字节；Ulysses 的每次交换都发送分片的 "
                    f"(n−1)/n，即 {full} 字节：每次调用的数据都必须真正传输", "wrong_answer")
    return None


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """Name the (position, head, d) the element should hold, the rank whose input holds it, and
    the (position, head, d) it holds instead."""
    layout = _layout(case, rank, False)
    if index >= len(layout):
        return None
    owner = {key: r for r in range(case.world) for key in _layout(case, r, True)}
    where = {v: key for key, v in _full(case, inputs).items()}
    p, h, d = layout[index]
    should = (f"should be sequence position {p}, head {h}, d {d} (from rank {owner[p, h, d]}'s "
              "input)")
    should_zh = f"应为序列位置 {p}、头 {h}、d {d}（来自 rank {owner[p, h, d]} 的输入）"
    if got not in where:
        return (f"{should}, but holds a value found in no rank's input",
                f"{should_zh}，但实际值不在任何 rank 的输入中")
    gp, gh, gd = where[got]
    fix, fix_zh = BLOCKS[CALLS[case.texts["grade"]][-1]]
    return (f"{should}, but holds position {gp}, head {gh}, d {gd} (rank "
            f"{owner[gp, gh, gd]}'s): {fix}",
            f"{should_zh}，但实际是位置 {gp}、头 {gh}、d {gd}（rank {owner[gp, gh, gd]} 的）："
            f"{fix_zh}")
