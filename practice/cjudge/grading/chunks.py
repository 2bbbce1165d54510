"""Wrong answers summarised by chunk, and which ranks' sum a message's chunk carries.

A ring, a transpose or an all-gather moves a rank's tensor in ``world`` chunks, so a mistake
shows as a pattern of chunks ("each rank has one wrong chunk: the all-gather stopped one step
short") that one wrong element does not show. Chunks are the grader's: its optional
``chunk_of(case, index)`` says that its result travels in chunks and which holds an element.
A result that does not (an attention output's rows, a tree's sum, tokens back from their
experts) is never summarised by chunk.

Which ranks a message's values sum (the trace view's labels, a diagnosis's steps) is a subset-sum
question: ``kit.pieces.chunk_reader`` lists every subset of a few ranks; beyond that,
:func:`solving_reader` solves it as linear algebra in polynomial time (a chunk's elements are
generic, so a chunk of at least n elements has one solution at most).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..contract import values
from ..contract.protocol import TensorData

try:
    import numpy as np
except ImportError:  # pragma: no cover - the browser may run without numpy
    np = None  # type: ignore[assignment]  # every use checks for None

#: what a pattern of one wrong chunk per rank suggests (a guess: a diagnosis from the run's
#: evidence drops it)
ONE_WRONG_CHUNK = (". Every rank has exactly one wrong chunk: a step missing or one chunk too few",
                   "。每个 rank 恰好错了一块：少了一步，或者少传了一块")


def wrong_chunks(got: TensorData, want: TensorData,
                 chunk_of: Callable[[int], int]) -> tuple[list[int], int]:
    """The chunks of ``got`` (a tensor's data) holding at least one wrong element, in order,
    and how many chunks it has."""
    wrong = sorted({chunk_of(i) for i, (g, w) in enumerate(zip(got["data"], want["data"],
                                                               strict=True))
                    if not values.element_matches(g, w, want["dtype"])})
    return wrong, len({chunk_of(i) for i in range(len(want["data"]))})


class Summary(NamedTuple):
    """The wrong chunks by rank, (English, Chinese), and the ``guess`` they suggest alone (every
    rank one chunk wrong: a step missing), which evidence from the run replaces."""

    text: tuple[str, str]
    guess: tuple[str, str] | None = None


def summary(params: Mapping[str, int | str], world: int, outputs: list[Any], wants: list[Any],
            grader: Any) -> Summary | None:
    """"wrong chunks by rank: …" for a wrong answer whose results are tensors of the expected
    shape, when the grader says how its result travels in chunks (``chunk_of``) and more than
    one chunk is wrong but not all of them (then one element says enough)."""
    grader_chunk = getattr(grader, "chunk_of", None)
    if world < 2 or grader_chunk is None:
        return None

    def chunk_of(index: int) -> int:
        return int(grader_chunk(params, world, index))
    wrong: dict[int, list[int]] = {}
    every = 0  # chunks of every rank
    for rank, (got, want) in enumerate(zip(outputs, wants, strict=True)):
        if not (values.is_tensor(got) and values.is_tensor(want)) or \
                got["shape"] != want["shape"] or len(want["data"]) < world:
            return None
        chunks, count = wrong_chunks(got, want, chunk_of)
        every += count
        if chunks:
            wrong[rank] = chunks
    if not 2 <= sum(len(c) for c in wrong.values()) < every:
        return None  # one wrong element says enough, and so does "everything is wrong"
    parts = "; ".join(f"rank {r}: {', '.join(map(str, c))}" for r, c in wrong.items())
    parts_zh = "；".join(f"rank {r}：{'、'.join(map(str, c))}" for r, c in wrong.items())
    text = (f"wrong chunks by rank ({world} chunks each): {parts}",
            f"各 rank 的错误块（每个 {world} 块）：{parts_zh}")
    one_each = len(wrong) == world and all(len(c) == 1 for c in wrong.values())
    return Summary(text, ONE_WRONG_CHUNK if one_each else None)


#: a reader's answer: (the chunk, the ranks whose contributions it sums), or None
Reading = tuple[int, list[int]] | None
#: messages a solving reader reads in one matrix product
BATCH = 256
#: a float32 addition's relative rounding (2^-24): sums of many ranks differ from exact by it
ROUNDING = 2.0 ** -24


def solving_reader(inputs: Sequence[Mapping[str, object]], chunks: list[tuple[int, int]]
                   ) -> Callable[[list[float]], Reading]:
    """What reads a message's values as (its chunk, the ranks whose contributions it sums) by
    solving X_c·w = values for each chunk c of the message's length (X_c: the ranks' elements of
    chunk c, one column a rank) and keeping the 0/1 solutions that reproduce every value (to
    1e-6, and to float32's rounding of a sum of that many terms), the fewest ranks first.
    Polynomial: one pseudo-inverse per chunk, then products. A chunk shorter than the number of
    ranks (or whose columns are dependent) cannot be told apart: None, as when two chunks fit
    equally well with as few ranks. Without numpy it reads nothing. Its ``many(messages)``
    reads a list of messages in a few matrix products."""
    world = len(inputs)
    by_length: dict[int, tuple[list[int], Any, Any]] = {}  # L -> (chunk ids, X stack, pinv)
    if np is not None:
        data = np.array([i["data"] for i in inputs], dtype=np.float64)  # (ranks, elements)
        for length in {hi - lo for lo, hi in chunks if hi - lo >= world}:
            ids = [c for c, (lo, hi) in enumerate(chunks) if hi - lo == length]
            stack = np.stack([data[:, lo:hi].T for lo, hi in (chunks[c] for c in ids)])
            solid = np.linalg.matrix_rank(stack) == world
            if solid.any():
                stack = stack[solid]
                by_length[length] = ([c for c, ok in zip(ids, solid, strict=True) if ok], stack,
                                     np.linalg.pinv(stack).reshape(-1, length))

    def many(messages: list[list[float]]) -> list[Reading]:
        out: list[Reading] = [None] * len(messages)
        for length, (ids, stack, inverse) in by_length.items():
            which = [m for m, got in enumerate(messages) if len(got) == length]
            for lo in range(0, len(which), BATCH):
                block = which[lo:lo + BATCH]
                v = np.array([messages[m] for m in block], dtype=np.float64).T  # (L, B)
                # the nearest 0/1 solution for each chunk and message: (chunks, ranks, B)
                picked = ((inverse @ v) > 0.5).reshape(len(ids), world, len(block))
                # a float32 sum of k terms is off by up to k·2^-24 of its terms' magnitudes
                slack = ROUNDING * picked.sum(axis=1, keepdims=True) * (np.abs(stack) @ picked)
                fits = (np.abs(stack @ picked - v) <= slack + 1e-6 * np.abs(v) + 1e-9).all(axis=1)
                fits &= picked.any(axis=1)  # (chunks, B)
                for j, m in enumerate(block):
                    found = sorted((int(picked[k, :, j].sum()), k) for k in np.flatnonzero(fits[:, j]))
                    if found and (len(found) == 1 or found[1][0] > found[0][0]):
                        k = found[0][1]
                        out[m] = ids[k], [int(r) for r in np.flatnonzero(picked[k, :, j])]
        return out

    def read(got: list[float]) -> Reading:
        return many([got])[0]

    vars(read).update(many=many)
    return read
