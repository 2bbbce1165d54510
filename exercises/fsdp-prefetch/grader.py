"""Trusted grading code for fsdp-prefetch: each layer's parameters cut into n shards, each
rank's input, the output of the L layers, and the gathered layers alive at once (its memory
bound), counted from the all-gathers the rank posts and the layer_fn calls that use them.

layer_fn(w, x) returns x + Σ_j (j + 1) · w[j] (``switch.functions``): the layer's full
parameters, in rank order, decide its output. The weights are multiples of 1/16 with low bits
that no narrower float holds, every value exact in the case's dtype.
"""

from __future__ import annotations

import random
from typing import Any

from cjudge.kit.case import Case
from cjudge.kit.pieces import refined
from cjudge.kit.where import peak
from cjudge.switch import functions

ITEMSIZE = {"float32": 4, "float64": 8}
BOUND = 2  # gathered layers alive at once: the one computing and the one prefetched


def make_inputs(case: Case, rng: random.Random) -> list[dict[str, Any]]:
    """Rank r: the judge's layer_fn, its shard of each of the L layers (k elements: layer l's
    elements r·k … r·k + k − 1), and its own input x (act elements)."""
    layers, k, act, dtype = case["layers"], case["k"], case["act"], case.dtype
    width = case.world * k
    # the output stays below L·(Σ_j (j + 1))·4 + 128: the bits it takes above the weights'
    # 7 are kept free of their low bits, so every value stays exact (``pieces.refined``)
    headroom = (layers * width * (width + 1) // 2 * 4 + 128).bit_length() - 3
    weights = [refined([rng.randint(-64, 64) / 16 for _ in range(width)], 1 / 16, 7, headroom,
                       dtype, rng) for _ in range(layers)]
    calls = []
    for rank in range(case.world):
        shards = [{"shape": [k], "dtype": dtype, "data": w[rank * k:(rank + 1) * k]}
                  for w in weights]
        x = {"shape": [act], "dtype": dtype,
             "data": [rng.randint(-2048, 2048) / 16 for _ in range(act)]}
        layer_fn = {"fn": "layer", "params": {"label": "layer_fn", "unit": act}}
        calls.append({"call": [layer_fn, shards, x]})
    return calls


def expected(case: Case, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rank r returns layer L − 1 ∘ … ∘ layer 0 applied to its x, each layer with its full
    parameters (the shards of ranks 0 … n − 1, in order)."""
    layers = case["layers"]
    shifts = []
    for layer in range(layers):
        w = [v for r in range(case.world) for v in inputs[r]["call"][1][layer]["data"]]
        shifts.append(sum((j + 1) * v for j, v in enumerate(w)))
    out = []
    for call in (i["call"] for i in inputs):
        x = call[2]
        out.append({"shape": list(x["shape"]), "dtype": x["dtype"],
                    "data": [v + sum(shifts) for v in x["data"]]})
    return out


def bytes_bound(case: Case) -> int:
    """Each layer gathered once: a rank sends its k-element shard of each of the L layers to
    the n − 1 others, L · (n − 1) · k elements."""
    return case["layers"] * (case.world - 1) * case["k"] * case.itemsize


def check_computes(case: Case, inputs: list[dict[str, Any]],
                   computes: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Each rank gave layer_fn every layer's full parameters (its n shards, gathered in rank
    order), layer 0 first: layer_fn is linear in them, so a rank that sums its shards of all
    layers and gathers the sum would do L layers' work with one gather and one call. Extra
    calls are the memory count's to judge."""
    def full(layer: int) -> str:
        w = [v for i in inputs for v in i["call"][1][layer]["data"]]
        return functions.digest(functions.pack(w, case.dtype))

    layers = [full(layer) for layer in range(case["layers"])]
    for rank in range(case.world):
        given = iter(c.get("inputs", [None])[0] for c in computes
                     if c["rank"] == rank and c["name"] == "layer")
        missing = next((layer for layer, want in enumerate(layers)
                        if not any(got == want for got in given)), None)
        if missing is not None:
            after = f" after layer {missing - 1}'s" if missing else ""
            after_zh = f"（在第 {missing - 1} 层之后）" if missing else ""
            return (f"rank {rank} never gave layer_fn layer {missing}'s full parameters{after}: "
                    f"call it once per layer, in order, each time with the layer's {case.world} "
                    "gathered shards",
                    f"rank {rank} 没有把第 {missing} 层的完整参数交给 layer_fn{after_zh}：每层调用"
                    f"一次，按顺序，每次给这一层 {case.world} 个收集好的分片")
    return None


def memory(case: Case, inputs: list[dict[str, Any]], trace: dict[str, Any]) -> dict[str, Any]:
    """Gathered layers alive: a layer's parameters are alive from the moment its all-gather is
    posted until the layer_fn call they are given to. Per rank, in switch time, each all-gather
    adds the elements it gathers and each layer_fn call, once made, frees one layer's (n · k);
    the peak, in layers, is bounded by 2."""
    layer = case.world * case["k"]
    size = case.itemsize
    events: dict[int, list[tuple[int, int, str, int | None]]] = {r: [] for r in range(case.world)}
    for req in trace["requests"]:
        if req["graded"] and req["kind"] == "all_gather":
            events[req["rank"]].append((req["posted"], req["bytes"] // size * case.world,
                                        req["api"], req.get("line")))
    for call in trace.get("computes", []):
        if call["name"] == "layer":
            events[call["rank"]].append((call["t"], -layer, "layer_fn", call.get("line")))
    most = peak({rank: _changes(sorted(items, key=lambda e: e[:2]), layer, case.world)
                 for rank, items in events.items()}, layer)
    at, at_zh = most.at()
    return {"peak": most.held, "bound": BOUND, "what": "gathered layers",
            "what_zh": "个已收集的层",
            "message": f"rank {most.rank} held {most.held} layers' gathered parameters at once "
                       f"(from the all-gather's post to the layer_fn call given them), {at}; at "
                       f"most {BOUND}: gather layer l + 1 while layer l computes, and no further "
                       "ahead",
            "message_zh": f"rank {most.rank} {at_zh}同时持有 {most.held} 层收集好的参数（从发起 "
                          f"all-gather 到把它们交给 layer_fn 的调用）；最多 {BOUND} 层：在第 l 层"
                          "计算时收集第 l + 1 层，不要更早"}


def _changes(events: list[tuple[int, int, str, int | None]], layer: int,
             world: int) -> list[tuple[int, str, int | None]]:
    """A rank's changes to what it holds, in switch time. At one rank a layer's shard is its
    full parameters: a layer_fn call made while no gathered layer is alive was given the shard
    itself, and frees nothing."""
    out: list[tuple[int, str, int | None]] = []
    held = 0
    for _, change, name, line in events:
        if world > 1 or held + change >= 0:
            held += change
            out.append((change, name, line))
    return out


def diagnose(case: Case, inputs: list[dict[str, Any]], rank: int, index: int,
             got: float) -> tuple[str, str] | None:
    """A wrong output that is a layer's own shard's weighting instead of its full
    parameters'."""
    x = inputs[rank]["call"][2]["data"][index]
    k, layers = case["k"], case["layers"]
    own = sum((j + 1) * v for layer in range(layers)
              for j, v in enumerate(inputs[rank]["call"][1][layer]["data"]))
    if case.world > 1 and got == x + own:
        return ("each layer_fn call was given this rank's shard, not the layer's full "
                f"parameters: all-gather the {case.world} shards ({case.world * k} elements) first",
                f"每次调用 layer_fn 给的都是本 rank 的分片，而不是这一层的完整参数：先把 {case.world} "
                f"个分片（共 {case.world * k} 个元素）all-gather 起来")
    return None
