"""Wrong answers summarised by chunk: which chunks of which ranks' results are wrong.

A ring, a transpose or an all-gather moves a rank's tensor in ``world`` chunks, so a mistake
shows as a pattern of chunks ("each rank has one wrong chunk: the all-gather stopped one step
short") that one wrong element does not show. Chunks are the grader's (its optional
``chunk_of(case, index)``), else ``torch.chunk``'s of the flat tensor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from . import values
from .protocol import TensorData

#: what a pattern of one wrong chunk per rank suggests (a guess: a diagnosis from the run's
#: evidence drops it)
ONE_WRONG_CHUNK = (". Every rank has exactly one wrong chunk: a step missing or one chunk too few",
                   "。每个 rank 恰好错了一块：少了一步，或者少传了一块")


def wrong_chunks(got: TensorData, want: TensorData, world: int,
                 chunk_of: Callable[[int], int] | None = None) -> tuple[list[int], int]:
    """The chunks of ``got`` (a tensor's data) holding at least one wrong element, in order,
    and how many chunks it has."""
    size = math.ceil(len(want["data"]) / world) or 1
    where = chunk_of or (lambda index: index // size)
    wrong = sorted({where(i) for i, (g, w) in enumerate(zip(got["data"], want["data"],
                                                            strict=True))
                    if not values.element_matches(g, w, want["dtype"])})
    return wrong, len({where(i) for i in range(len(want["data"]))})


class Summary(NamedTuple):
    """The wrong chunks by rank, (English, Chinese), and the ``guess`` they suggest alone (every
    rank one chunk wrong: a step missing), which evidence from the run replaces."""

    text: tuple[str, str]
    guess: tuple[str, str] | None = None


def summary(params: dict, world: int, outputs: list[Any], wants: list[Any],
            grader: Any) -> Summary | None:
    """"wrong chunks by rank: …" for a wrong answer whose results are tensors of the expected
    shape, when more than one chunk is wrong but not all of them (then one element says
    enough)."""
    if world < 2:
        return None
    grader_chunk = getattr(grader, "chunk_of", None)
    chunk_of = (lambda index: grader_chunk(params, world, index)) if grader_chunk else None
    wrong: dict[int, list[int]] = {}
    every = 0  # chunks of every rank
    for rank, (got, want) in enumerate(zip(outputs, wants, strict=True)):
        if not (values.is_tensor(got) and values.is_tensor(want)) or \
                got["shape"] != want["shape"] or len(want["data"]) < world:
            return None
        chunks, count = wrong_chunks(got, want, world, chunk_of)
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
