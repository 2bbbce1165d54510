"""The pieces graders share: exact inputs, sums, which ranks' contributions a wrong sum lacks or
doubles, 2-D tensors, what a message carries, what a judge's function was fed, which item of a
returned list is wrong and what it was mistaken for, smaller cases.

Inputs are multiples of 1/16 below 256 in magnitude with random low bits appended (``refined``),
so any sum of up to 8 of them is exact in the case's dtype in any order: a wrong element can be
traced back to the ranks it came from, and no narrower float holds the inputs.
"""

from __future__ import annotations

import math
import random
import re
import sys
from array import array
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..contract.protocol import TensorData, TraceEvent
from ..contract.units import plural
from ..grading.budget import ranks_text
from ..grading.chunks import solving_reader
from ..switch import functions
from ..switch.trace import Compute
from .case import Case

if TYPE_CHECKING:
    from numpy.typing import NDArray

try:
    import numpy as np
except ImportError:  # pragma: no cover - exercised where numpy is absent (the browser may be)
    np = None  # type: ignore[assignment]  # numpy is optional: every use checks for None

SCALE = 16
LIMIT = 4096
#: what ``randint(-LIMIT, LIMIT)`` shifts a 32-bit word right by (its range needs 14 bits)
RANDINT_SHIFT = 32 - (2 * LIMIT + 1).bit_length()


#: the significand's bits of each floating-point case dtype
MANTISSA = {"float32": 24, "float64": 53}
#: the bits of headroom a sum of up to 8 values needs
SUMS_OF_8 = 3
#: the most ranks whose every subset ``chunk_reader`` lists (4096 sums a chunk); beyond, it solves
SUBSETS_UP_TO = 12


def refined(values: list[float], step: float, used: int, headroom: int, dtype: str,
            rng: random.Random) -> list[float]:
    """``values`` (multiples of ``step`` whose codes v/step need ``used`` bits) with random
    low bits appended below ``step``, as many as ``dtype``'s significand holds with
    ``headroom`` bits left for what the family computes from them (sums, products), so they
    stay exact. A float32 case's values then need more bits than float16 (11) or bfloat16 (8)
    keep, a float64 case's more than float32 (24): a down-cast of the inputs, packed into the
    case's width or not, is a wrong answer. The leading digits (the multiple of ``step``) stay."""
    extra = max(0, MANTISSA.get(dtype, 0) - headroom - used)
    unit = step / (1 << extra)
    bits = _low_bits(rng, len(values), extra)
    if isinstance(bits, list):
        return [v + b * unit for v, b in zip(values, bits, strict=True)]
    # numpy: the same IEEE operations, element by element, at once
    added: list[float] = (np.asarray(values, dtype=np.float64) + bits * unit).tolist()
    return added


def _words(rng: random.Random, count: int) -> array[int]:
    """The next ``count`` 32-bit words of ``rng``, in the order ``rng.getrandbits(32)`` would
    draw them: one bulk draw, whose words are the little-endian words of one integer."""
    words = array("I", rng.getrandbits(32 * count).to_bytes(4 * count, "little"))
    if sys.byteorder == "big":
        words.byteswap()
    return words


def _low_bits(rng: random.Random, count: int, bits: int) -> list[int] | NDArray[np.uint64]:
    """``[rng.getrandbits(bits) for _ in range(count)]`` (``bits`` ≤ 64), drawn in bulk (a
    numpy array where numpy is there): the same numbers, ``rng`` left in the same state.
    ``getrandbits(k)`` takes one 32-bit word shifted right by 32 − k for k ≤ 32 (none for 0);
    for k > 32 a full low word, then a high one shifted right by 64 − k."""
    if bits == 0:
        return [0] * count if np is None else np.zeros(count, dtype=np.uint64)
    words = _words(rng, count if bits <= 32 else 2 * count)
    if np is None:
        if bits <= 32:
            return [w >> (32 - bits) for w in words]
        return [lo | (hi >> (64 - bits)) << 32
                for lo, hi in zip(words[0::2], words[1::2], strict=True)]
    drawn = np.frombuffer(words, dtype=np.uint32).astype(np.uint64)
    if bits <= 32:
        return drawn >> np.uint64(32 - bits)
    return drawn[0::2] | (drawn[1::2] >> np.uint64(64 - bits)) << np.uint64(32)


def exact_inputs(world: int, numel: int, dtype: str, rng: random.Random) -> list[TensorData]:
    """Every rank's 1-D tensor of ``numel`` exact values, refined
    so that sums of up to 8 stay exact."""
    return [{"shape": [numel], "dtype": dtype,
             "data": refined(_exact_values(numel, rng), 1 / SCALE, LIMIT.bit_length(), SUMS_OF_8,
                             dtype, rng)}
            for _ in range(world)]


def _exact_values(count: int, rng: random.Random) -> list[float]:
    """``[rng.randint(-LIMIT, LIMIT) / SCALE for _ in range(count)]``, drawn in bulk: the same
    values, ``rng`` left in the same state. ``randint`` keeps the top 14 bits of one 32-bit word
    of ``rng`` when they are at most 2·LIMIT, else draws again; a batch draws no more words
    than values still wanted, so never one that ``randint`` would not have drawn."""
    out: list[float] = []
    while (wanted := count - len(out)) > 0:
        words = _words(rng, wanted)
        if np is not None:
            codes = np.frombuffer(words, dtype=np.uint32) >> np.uint32(RANDINT_SHIFT)
            out += ((codes[codes <= 2 * LIMIT].astype(np.float64) - LIMIT) / SCALE).tolist()
        else:
            out += [(k - LIMIT) / SCALE for w in words if (k := w >> RANDINT_SHIFT) <= 2 * LIMIT]
    return out


def distinct_exact(count: int, limit: int, headroom: int, dtype: str,
                   rng: random.Random) -> list[float]:
    """``count`` distinct values k/16 + low bits (``refined``, ``headroom`` bits kept for what
    is computed from them), 0 < |k| <= ``limit``: each value names the one place it was drawn
    for. Past the 2·``limit`` codes (bench's large sizes, never a judged case) the codes are
    drawn again, so values repeat."""
    codes = [k for k in range(-limit, limit + 1) if k]
    drawn: list[int] = []
    while len(drawn) < count:
        drawn += rng.sample(codes, min(count - len(drawn), len(codes)))
    return refined([k / SCALE for k in drawn], 1 / SCALE, limit.bit_length(), headroom, dtype, rng)


def elements(t: Mapping[str, object]) -> list[float]:
    """A tensor's ``data`` (``t`` a ``TensorData``, or a grader's plain dict of one); TypeError
    if it holds no list."""
    data = t["data"]
    if not isinstance(data, list):
        raise TypeError("a tensor's data is not a list")
    return data


def matrix(t: TensorData) -> list[list[float]]:
    """A 2-D tensor's rows."""
    cols, data = t["shape"][1], t["data"]
    return [list(data[i:i + cols]) for i in range(0, len(data), cols)]


def tensor2d(rows: list[list[float]], dtype: str) -> TensorData:
    """Rows as a 2-D tensor."""
    return {"shape": [len(rows), len(rows[0]) if rows else 0], "dtype": dtype,
            "data": [v for row in rows for v in row]}


def item_of(path: str) -> int | None:
    """Which item of a returned list ``path`` ("[i]") is; None for any other path."""
    match = re.fullmatch(r"\[(\d+)\]", path)
    return None if match is None else int(match.group(1))


def mistaken_for(got: float, value: float, want: float) -> bool:
    """Whether ``got`` is ``value`` (to 1e-5) where ``value`` is not the ``want``ed one: a
    wrong element that a named mistake explains."""
    return math.isclose(got, value, rel_tol=1e-5, abs_tol=1e-5) and not math.isclose(
        want, value, rel_tol=1e-5, abs_tol=1e-5)


def digit_inputs(world: int, numel: int, dtype: str) -> list[TensorData]:
    """A statement's example, checkable by hand: element i of rank r is (i+1)·10**r, so each
    decimal digit of a sum counts one rank's contribution (4 ranks end with 1111, 2222, …; a 0
    digit is a missing rank, a 2 one counted twice)."""
    return [{"shape": [numel], "dtype": dtype, "data": [(i + 1) * 10.0 ** r for i in range(numel)]}
            for r in range(world)]


def elementwise_sum(inputs: Sequence[TensorData]) -> list[float]:
    """The elementwise sum of every rank's input, exactly."""
    return [math.fsum(col) for col in zip(*(i["data"] for i in inputs), strict=True)]


def everyone_holds_the_sum(inputs: Sequence[TensorData]) -> list[TensorData]:
    """An all-reduce's result: every rank ends with the elementwise sum, in its input's shape."""
    total = elementwise_sum(inputs)
    return [{"shape": list(i["shape"]), "dtype": i["dtype"], "data": total} for i in inputs]


def contributions(got: float, parts: list[float], what: str,
                  what_zh: str) -> tuple[str, str] | None:
    """Which ranks' ``parts`` are missing from ``got`` (the fewest that explain it), or which
    one is counted twice; None if no such set explains it."""
    world = len(parts)
    for mask in sorted(range(1, 1 << world), key=lambda k: bin(k).count("1")):
        missing = [r for r in range(world) if mask >> r & 1]
        if len(missing) == world:
            break
        if got == math.fsum(x for r, x in enumerate(parts) if r not in missing):
            names = ", ".join(map(str, missing))
            return (f"{what} lacks the contribution of rank(s) {names}",
                    f"{what_zh}缺少 rank {names} 的贡献")
    for r, x in enumerate(parts):
        if x != 0 and got == math.fsum(parts) + x:
            return (f"{what} counts rank {r}'s contribution ({x:g}) twice",
                    f"{what_zh}把 rank {r} 的贡献（{x:g}）加了两次")
    return None


def torch_chunks(numel: int, world: int) -> list[tuple[int, int]]:
    """The [start, end) of each of ``t.chunk(world)``'s chunks of a 1-D tensor (torch makes
    ⌈N/n⌉-element chunks, so the last ones may be shorter or missing)."""
    size = math.ceil(numel / world) if numel else 1
    return [(lo, min(lo + size, numel)) for lo in range(0, numel, size)]


def chunk_reader(inputs: Sequence[Mapping[str, object]], chunks: list[tuple[int, int]],
                 noun: tuple[str, str] = ("chunk", "块")
                 ) -> Callable[[list[float]], tuple[int, list[int]] | None]:
    """What reads a message's ``values``: (its chunk, the fewest ranks whose contributions it
    sums), or None when no chunk and set explain every element, or when two sets of as few
    ranks do (inputs such as 10r + i cannot tell ranks 1 + 2 from 0 + 3). Sums of exact inputs
    are exact, so the first element looks the candidates up; the rest confirm. ``noun`` is
    what the exercise calls a chunk (English, Chinese), for diagnoses."""
    if len(inputs) > SUBSETS_UP_TO:  # 2^n subsets no more: solve it (``chunks``)
        solved = solving_reader(inputs, chunks)
        vars(solved).update(chunks=len(chunks), mode="reduce", noun=noun)
        return solved
    world, everyone = len(inputs), (1 << len(inputs)) - 1
    data = [elements(i) for i in inputs]
    masks = sorted(range(1, 1 << world), key=lambda k: bin(k).count("1"))
    members = {mask: [r for r in range(world) if mask >> r & 1] for mask in masks}
    first: dict[tuple[int, float], list[int]] = {}
    for c, (lo, hi) in enumerate(chunks):
        if hi > lo:
            column = [d[lo] for d in data]
            for mask in masks:
                total = math.fsum([column[r] for r in members[mask]])
                first.setdefault((hi - lo, total), []).append(mask | c << world)
    for keys in first.values():  # fewest ranks first, whatever the chunk
        keys.sort(key=lambda key: bin(key & everyone).count("1"))
    sums: dict[int, list[float]] = {}  # candidate -> its chunk summed over its ranks

    def read(values: list[float]) -> tuple[int, list[int]] | None:
        found: list[tuple[int, list[int]]] = []
        for key in first.get((len(values), float(values[0])) if values else (0, 0.0), []):
            c, ranks = key >> world, members[key & everyone]
            if found and len(ranks) > len(found[0][1]):
                break  # candidates come fewest ranks first
            if key not in sums:
                lo, hi = chunks[c]
                sums[key] = list(map(sum, zip(*(data[r][lo:hi] for r in ranks), strict=True)))
            want = sums[key]
            if values == want or all(v == s or math.isclose(v, s, rel_tol=1e-6, abs_tol=1e-9)
                                     for v, s in zip(values, want, strict=True)):
                found.append((c, list(ranks)))
        return found[0] if len(found) == 1 else None

    # its layout, as attributes the diagnosis and the buffer view read with getattr
    vars(read).update(chunks=len(chunks), mode="reduce", noun=noun)
    return read


def block_reader(inputs: Sequence[Mapping[str, object]]
                 ) -> Callable[[list[float]], tuple[int, list[int]] | None]:
    """What reads a gather's message: (c, [c]) when it is rank c's whole input block; a rank's
    buffer starts with its own block only ("gather" mode)."""
    blocks = {tuple(elements(i)): c for c, i in enumerate(inputs)}

    def read(values: list[float]) -> tuple[int, list[int]] | None:
        c = blocks.get(tuple(values))
        return None if c is None else (c, [c])

    vars(read).update(chunks=len(inputs), mode="gather")  # its layout (see chunk_reader)
    return read


def first_unfed(computes: Sequence[Compute], rank: int, name: str, want: list[float],
                dtype: str) -> tuple[int, int] | None:
    """Whether ``rank``'s calls of the judge's function ``name``, in order, were given exactly
    ``want`` (``dtype`` elements), split among them however they like (one call per microbatch,
    or one for all: each call's charge is by its size). None if so, else (the first call that
    was given something else, or the number of calls when they were given too little; how many
    calls it made). A call's input is known by its digest (``switch.functions``)."""
    calls = [c for c in computes if c["rank"] == rank and c["name"] == name]
    start = 0
    for i, call in enumerate(calls):
        piece = want[start:start + call["elements"]]
        if call.get("dtype") != dtype or len(piece) != call["elements"] or \
                functions.digest(functions.pack(piece, dtype)) != call.get("input"):
            return i, len(calls)
        start += call["elements"]
    return None if start == len(want) else (len(calls), len(calls))


def smaller_cases(case: Case, size: str,
                  fits: Callable[[int, int], bool] | None = None) -> list[tuple[int, dict[str, object]]]:
    """Cases smaller than ``case`` for the smallest-failing-case search, as (world, params):
    worlds of 2 ranks or more, each with ``size`` from 1 to twice its ranks (and never past the
    case's own), where ``fits(world, size)`` (the exercise's algorithm is defined there); fewest
    ranks first, then smallest."""
    top = case[size]
    return [(w, {**case.params, size: s}) for w in range(2, case.world + 1)
            for s in range(1, min(top, 2 * w) + 1)
            if (w, s) < (case.world, top) and (fits is None or fits(w, s))]


def blocks_needed(case: Case, rank: int, calls: Sequence[TraceEvent], what: tuple[str, str],
                  block: str = "k") -> tuple[str, str] | None:
    """A grader's ``needs`` (``cjudge.grading.budget``) where rank p needs only block p
    (``case[block]`` elements) of ``rank``'s ``what`` (e.g. ("row", "行")): an all-to-all, a
    reduce-scatter. Says to whom the rank sent more, from its ``calls`` (an all_to_all sends a
    block to every rank)."""
    world, k = case.world, case[block]
    per_peer: dict[int, int] = {}
    for call in calls:
        if call["op"] == "all_to_all":
            for peer in range(world):
                if peer != rank:
                    per_peer[peer] = per_peer.get(peer, 0) + call["count"] // world
        elif call["op"] == "send" and call["peer"] is not None:
            per_peer[call["peer"]] = per_peer.get(call["peer"], 0) + call["count"]
    extra = sorted(p for p, count in per_peer.items() if count > k)
    if not extra:
        return None
    amounts = {per_peer[p] for p in extra}
    amount = amounts.pop() if len(amounts) == 1 else None
    whole = amount == world * k
    sends = (f"its whole {what[0]} ({plural(world * k, 'element')})" if whole else
             f"{plural(amount, 'element')}" if amount else "more than a block")
    lead = " " if what[1][0].isascii() else ""  # "的 x", "的行"
    sends_zh = (f"自己完整的{lead}{what[1]}（{world * k} 个元素）" if whole else
                f"{amount} 个元素" if amount else "多于一个块的数据")
    to = (f"each of the {world - 1} others" if len(extra) == world - 1 else ranks_text(extra))
    gap = " " if what[1][-1].isascii() else ""  # "x 中", "行中"
    to_zh = (f"其他 {world - 1} 个 rank 中的每一个" if len(extra) == world - 1
             else ranks_text(extra, zh=True))
    return (f"rank {rank} passes {sends} to {to}; rank p needs only block p of rank {rank}'s "
            f"{what[0]}: {plural(k, 'element')}, {(world - 1) * k} to the others in all",
            f"rank {rank} 把{sends_zh}发给了{to_zh}；而 rank p 只需要 rank {rank} 的{lead}{what[1]}{gap}中的"
            f"第 p 块：{k} 个元素，发给其他 rank 的总共 {(world - 1) * k} 个")
