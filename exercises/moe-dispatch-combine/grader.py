"""Trusted grading code for moe-dispatch-combine: routed tokens in, each rank's experts' rows in
(local expert, source rank, token) order out, the weighted combination back; token bytes apart
from the counts; diagnosis by token, rank and expert."""

from __future__ import annotations

import itertools
import json
import math
import random
from typing import Any, cast

from cjudge.kit.case import Case
from cjudge.kit.pieces import LIMIT, distinct_exact, first_unfed, matrix
from cjudge.switch.trace import Compute

#: bytes of one count (an int64)
COUNT_BYTES = 8
INTEGER_DTYPES = ("int64", "int32")
#: the experts' factors are distinct integers drawn per case from here: every weighted sum of
#: expert outputs stays exact in float32
FACTORS = range(2, 34)
#: the bits a weighted sum of expert outputs adds to an input's: a factor (6), a weight (4),
#: up to 4 terms (2); the inputs' low bits stop short of them (``pieces.refined``)
HEADROOM = 12


def _sizes(case: Case) -> tuple[int, int, int, int, int]:
    """E, E/n (experts per rank), k, tokens per rank, hidden."""
    experts = case["experts"]
    return (experts, experts // case.world, case["topk"], case["tokens"],
            case["hidden"])


def routing(case: Case) -> list[list[list[int]]]:
    """routes[r][t]: the k distinct experts of rank r's token t. The routing is part of the
    case (drawn from its parameters, not from the submission's seed), so that the byte bound,
    which depends on it, is known without the inputs: the hot expert (if any) in most tokens,
    a cold one in none, slots in random order."""
    experts, _, k, tokens, _ = _sizes(case)
    rng = random.Random(json.dumps([case.world, dict(case.params)], sort_keys=True))
    cold = set(case.params.get("cold", []))
    hot = case.params.get("hot")
    pool = [e for e in range(experts) if e not in cold]
    routes = []
    for _ in range(case.world):
        mine = []
        for _ in range(tokens):
            if hot is not None and rng.random() < 0.8:
                chosen = [hot, *rng.sample([e for e in pool if e != hot], k - 1)]
                rng.shuffle(chosen)
            else:
                chosen = rng.sample(pool, k)
            mine.append(chosen)
        routes.append(mine)
    return routes


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Every rank's x (distinct values k/16 + low bits, so each names its token and column),
    topk_idx (int64, the case's routing) and topk_w (multiples of 1/8 in (0, 1]): every
    weighted sum of expert outputs is exact in float32. The layer's experts multiply by
    factors drawn here, per case (the switch keeps them)."""
    experts, local, k, tokens, hidden = _sizes(case)
    dtype = case.dtype
    values = distinct_exact(case.world * tokens * hidden, LIMIT - 1, HEADROOM, dtype, rng)
    factors = rng.sample(FACTORS, experts)
    inputs = []
    for r, routes in enumerate(routing(case)):
        x = {"shape": [tokens, hidden], "dtype": dtype,
             "data": values[r * tokens * hidden:(r + 1) * tokens * hidden]}
        idx = {"shape": [tokens, k], "dtype": "int64", "data": [e for row in routes for e in row]}
        if case.texts["grade"] == "dispatch":
            inputs.append({"call": [x, idx, experts], "functions": ["dispatch"]})
            continue
        w = {"shape": [tokens, k], "dtype": dtype,
             "data": [rng.randint(1, 8) / 8 for _ in range(tokens * k)]}
        expert = {"fn": "expert", "params": {"factors": factors[r * local:(r + 1) * local]}}
        inputs.append({"call": [x, idx, w, experts, expert], "functions": ["moe_layer"]})
    return inputs


def _rows(inputs: list[dict[str, Any]], rank: int) -> list[list[float]]:
    """Rank's x, by token."""
    return matrix(inputs[rank]["call"][0])


def _routes(inputs: list[dict[str, Any]], rank: int) -> list[list[int]]:
    """Rank's topk_idx, by token."""
    return cast(list[list[int]], matrix(inputs[rank]["call"][1]))


def _dispatched(case: Case, inputs: list[dict[str, Any]], rank: int) -> list[tuple[int, int, int]]:
    """Rank's rows after dispatch: (global expert, source rank, token), in the required order."""
    _, local, _, _, _ = _sizes(case)
    return [(rank * local + le, src, t) for le in range(local) for src in range(case.world)
            for t, route in enumerate(_routes(inputs, src)) if rank * local + le in route]


def _weights(inputs: list[dict[str, Any]], rank: int) -> list[list[float]]:
    """Rank's topk_w, by token."""
    return matrix(inputs[rank]["call"][2])


def _factors(inputs: list[dict[str, Any]]) -> list[float]:
    """The layer's factor of every expert, by global id."""
    return [f for i in inputs for f in i["call"][4]["params"]["factors"]]


def _dispatched_data(case: Case, inputs: list[dict[str, Any]], rank: int) -> list[float]:
    """The elements of rank's rows after dispatch, in order."""
    return [v for _, src, t in _dispatched(case, inputs, rank)
            for v in _rows(inputs, src)[t]]


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[Any]:
    """dispatch: (tokens, (counts, anything)); the layer: row t = Σ_slot w·f_e·x[t], f_e
    expert e's factor."""
    _, local, _, tokens, hidden = _sizes(case)
    dtype = case.dtype
    out = []
    for r in range(case.world):
        if case.texts["grade"] == "layer":
            f = _factors(inputs)
            data = [math.fsum(w * f[e] * v for w, e in zip(ws, route, strict=True))
                    for row, route, ws in zip(_rows(inputs, r), _routes(inputs, r),
                                              _weights(inputs, r), strict=True)
                    for v in row]
            out.append({"shape": [tokens, hidden], "dtype": dtype, "data": data})
            continue
        rows = _dispatched(case, inputs, r)
        data = _dispatched_data(case, inputs, r)
        counts = [sum(1 for e, _, _ in rows if e == r * local + le) for le in range(local)]
        out.append({"tuple": [{"shape": [len(rows), hidden], "dtype": dtype, "data": data},
                              {"tuple": [counts, {"any": True}]}]})
    return out


def payload_bytes(case: Case) -> list[int]:
    """Token bytes each rank must send: its (token, expert) rows for other ranks' experts, and
    for the layer also the expert outputs it returns to their ranks in combine."""
    _, local, _, _, hidden = _sizes(case)
    rows = [[0] * case.world for _ in range(case.world)]  # rows[r][j]: pairs rank r sends to rank j
    for r, routes in enumerate(routing(case)):
        for e in itertools.chain.from_iterable(routes):
            rows[r][e // local] += 1
    out = []
    for r in range(case.world):
        there = sum(rows[r][j] for j in range(case.world) if j != r)
        back = sum(rows[j][r] for j in range(case.world) if j != r)
        out.append((there + (back if case.texts["grade"] == "layer" else 0)) * hidden * case.itemsize)
    return out


def metadata_bytes(case: Case) -> int:
    """The most count bytes a rank may send: an int64 count of every expert to every other
    rank (the reference sends (n−1)·E/n of them: each rank's own experts' counts)."""
    return (case.world - 1) * case["experts"] * COUNT_BYTES


def bytes_bound(case: Case) -> list[int]:
    """Per rank: exactly its token bytes plus the counts' allowance."""
    meta = metadata_bytes(case)
    return [p + meta for p in payload_bytes(case)]


def check_traffic(case: Case, calls: list[dict[str, Any]]) -> tuple[str, ...] | None:
    """The counts apart from the tokens: at most two all_to_all_single calls in dispatch (the
    counts, then the tokens) and one in combine (it reuses the counts), count bytes within
    their allowance, token bytes exactly what the routing needs (more: over budget; fewer:
    the rows did not travel, a wrong answer)."""
    payload = payload_bytes(case)
    meta = metadata_bytes(case)
    most = 2 if case.texts["grade"] == "dispatch" else 3
    what = ("dispatch (one for the counts, one for the tokens)" if most == 2 else
            "the layer (dispatch: the counts, the tokens; combine: the tokens back, reusing "
            "dispatch's counts)")
    what_zh = ("dispatch（一次交换计数，一次交换 token）" if most == 2 else
               "整层（dispatch：计数与 token；combine：把 token 送回，复用 dispatch 的计数）")
    for r in range(case.world):
        mine = [c for c in calls if c["rank"] == r and c["op"] == "all_to_all"]
        counts = sum(c["bytes"] for c in mine if c["dtype"] in INTEGER_DTYPES)
        tokens = sum(c["bytes"] for c in mine if c["dtype"] not in INTEGER_DTYPES)
        if len(mine) > most:
            return (f"rank {r} made {len(mine)} all_to_all_single calls; {most} are enough for "
                    f"{what}",
                    f"rank {r} 调用了 {len(mine)} 次 all_to_all_single；{what_zh}只需 {most} 次")
        if tokens > payload[r]:
            return (f"rank {r} sent {tokens} bytes in {case.dtype} calls, but its tokens "
                    f"for other ranks take exactly {payload[r]} (send the counts as an integer "
                    "tensor, and each row once)",
                    f"rank {r} 在 {case.dtype} 调用中发送了 {tokens} 字节，但它发往其他 "
                    f"rank 的 token 恰好需要 {payload[r]} 字节（计数请用整数张量发送，每行只发一次）")
        if counts > meta:
            return (f"rank {r} sent {counts} bytes of integers, more than the counts' "
                    f"allowance of {meta} (one int64 per expert per other rank)",
                    f"rank {r} 发送了 {counts} 字节的整数，超过计数的额度 {meta} 字节"
                    "（每个其他 rank 每个专家一个 int64）")
        if tokens < payload[r]:
            return (f"rank {r} sent only {tokens} bytes in {case.dtype} calls, but its "
                    f"tokens for other ranks take exactly {payload[r]}: every routed row must "
                    "travel to its expert's rank and back",
                    f"rank {r} 在 {case.dtype} 调用中只发送了 {tokens} 字节，但它发往其他 "
                    f"rank 的 token 恰好需要 {payload[r]} 字节：每个路由的行都必须送到专家所在的 "
                    "rank 并送回", "wrong_answer")
    return None


def check_computes(case: Case, inputs: list[dict[str, Any]],
                   computes: list[Compute]) -> tuple[str, str] | None:
    """In the layer, each rank's experts were given exactly the rows dispatch must return, in
    its order (one call or several in turn), and nothing else."""
    if case.texts["grade"] != "layer":
        return None
    for r in range(case.world):
        wrong = first_unfed(computes, r, "expert", _dispatched_data(case, inputs, r),
                            case.dtype)
        if wrong is not None:
            call, calls = wrong
            return (f"rank {r}'s expert must be given exactly the rows its dispatch returns, in "
                    f"order, and nothing else; its call {min(call + 1, calls)} of {calls} was "
                    "not", f"rank {r} 的 expert 必须恰好得到其 dispatch 返回的行，按顺序，且不得"
                    f"有其他数据；它的第 {min(call + 1, calls)} 次调用（共 {calls} 次）不符合")
    return None


def _where(inputs: list[dict[str, Any]]) -> dict[float, tuple[int, int, int]]:
    """x's values -> (rank, token, column)."""
    return {v: (r, t, c) for r in range(len(inputs)) for t, row in enumerate(_rows(inputs, r))
            for c, v in enumerate(row)}


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int, got: float,
             path: str = "") -> tuple[str, str] | None:
    """dispatch: which token of which rank, for which expert, a row should hold and which it
    holds; the layer: which expert's contribution a token's sum lacks or gets wrong."""
    hidden = case["hidden"]
    row, col = divmod(index, hidden)
    if case.texts["grade"] == "dispatch":
        if path != "[0]":
            return None
        rows = _dispatched(case, inputs, rank)
        if row >= len(rows):
            return None
        e, src, t = rows[row]
        should = (f"row {row} should be token {t} of rank {src} (for expert {e})")
        should_zh = f"第 {row} 行应为 rank {src} 的 token {t}（发往专家 {e}）"
        found = _where(inputs).get(got)
        if found is None:
            return (f"{should}, but holds a value that is in no rank's x",
                    f"{should_zh}，但实际值不在任何 rank 的 x 中")
        gr, gt, gc = found
        col_en = f", column {gc}" if gc != col else ""
        col_zh = f"，第 {gc} 列" if gc != col else ""
        return (f"{should}, but holds token {gt} of rank {gr}{col_en}",
                f"{should_zh}，但实际是 rank {gr} 的 token {gt}{col_zh}")
    return _diagnose_layer(inputs, rank, row, col, got)


def _diagnose_layer(inputs: list[dict[str, Any]], rank: int, t: int, col: int,
                    got: float) -> tuple[str, str] | None:
    x, f = _rows(inputs, rank)[t][col], _factors(inputs)
    route, ws = _routes(inputs, rank)[t], _weights(inputs, rank)[t]
    terms = [w * f[e] * x for w, e in zip(ws, route, strict=True)]
    head = f"token {t} went to experts {route} with weights {ws}"
    head_zh = f"token {t} 发往专家 {route}，权重 {ws}"
    if got == math.fsum(f[e] * x for e in route):
        return (f"{head}: the sum is unweighted (topk_w not applied)",
                f"{head_zh}：求和没有乘权重（没有用 topk_w）")
    if got == math.fsum(ws) * x:
        return (f"{head}: no expert's factor is in the sum",
                f"{head_zh}：和中没有任何专家的因子")
    for size in range(len(route) - 1, -1, -1):
        for kept in itertools.combinations(range(len(route)), size):
            if got == math.fsum(terms[s] for s in kept):
                lost = [route[s] for s in range(len(route)) if s not in kept]
                return (f"{head}: the sum lacks the output of expert(s) {lost}",
                        f"{head_zh}：和中缺少专家 {lost} 的输出")
    for s, (w, e) in enumerate(zip(ws, route, strict=True)):
        rest = math.fsum(terms) - terms[s]
        factor = (got - rest) / (w * x) if w * x else None
        if factor in f and f.index(factor) != e:
            other = f.index(factor)
            return (f"{head}: its slot {s} came back as expert {other}'s output, not "
                    f"expert {e}'s", f"{head_zh}：它的第 {s} 个槽位拿回的是专家 {other} "
                    f"的输出，而不是专家 {e} 的")
        weight = (got - rest) / (f[e] * x) if f[e] * x else None
        for u, other_ws in enumerate(_weights(inputs, rank)):
            for v, other_w in enumerate(other_ws):
                if weight == other_w and other_w != w and (u, v) != (t, s):
                    return (f"{head}: its slot {s} was weighted by {other_w}, token {u}'s weight "
                            f"in slot {v}: the weights are applied in another order than the "
                            "rows come back in",
                            f"{head_zh}：它的第 {s} 个槽位乘的是 {other_w}，即 token {u} 第 {v} "
                            "个槽位的权重：权重的顺序与拿回的行的顺序不一致")
    return None
