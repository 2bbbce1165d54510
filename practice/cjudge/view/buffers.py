"""Chunk labels and each rank's buffer filling in, from the learner's own messages.

For an exercise whose grader says what a message carries (its optional
``chunk_reader(case, inputs)`` → a function of a message's values answering (chunk,
ranks whose contributions it sums) or None; ``cjudge.kit.pieces.chunk_reader`` for sums),
each message of the timeline gets ``chunk`` and ``holds``, and the timeline gets ``buffers``.
In ``reduce`` mode (the reader's ``mode``) every rank starts holding its own contribution in
each chunk, and receiving chunk c summing ranks R adds R to what its chunk c holds (it adds what
it receives); in ``gather`` mode a rank starts with its own chunk only and a received chunk
brings its owner. Played step by step, that is the chapter's animation, driven
by the learner's run.
"""

from __future__ import annotations

from typing import Any

from ..protocol import CaseSpec
from ..switch.trace import SwitchTrace, recorded_values


def label_chunks(timeline: dict[str, Any], trace: SwitchTrace, grader: Any,
                 spec: CaseSpec) -> None:
    """Add ``chunk``/``holds`` to the messages the grader can read, and ``buffers``: per step,
    what each receiver's chunks hold once that step's messages arrived (a step's messages are
    taken together, so the order they happened to match in does not matter)."""
    make = getattr(grader, "chunk_reader", None)
    if make is None:
        return
    read = make(spec["params"], spec["world_size"], spec["inputs"])
    chunks, mode = getattr(read, "chunks", spec["world_size"]), getattr(read, "mode", "reduce")
    data = {m["id"]: recorded_values(m["data"]) for m in trace["messages"] if "data" in m}
    world = spec["world_size"]
    state = [[{rank} if mode == "reduce" or c == rank else set() for c in range(chunks)]
             for rank in range(world)]
    arrived: dict[int, dict[tuple[int, int], set[int]]] = {}  # step -> (rank, chunk) -> ranks
    for row in timeline["messages"]:
        values = data.get(row["id"])
        found = read(values) if values else None
        if found is None:
            continue
        chunk, ranks = found
        row["chunk"], row["holds"] = chunk, list(ranks)
        if chunk < chunks:
            arrived.setdefault(row["step"], {}).setdefault((row["dst"], chunk), set()).update(ranks)
    updates = []
    for step in sorted(arrived):
        for (rank, chunk), ranks in sorted(arrived[step].items()):
            state[rank][chunk] |= ranks  # a reduce adds what arrives to its own; a gather fills
            updates.append({"step": step, "rank": rank, "chunk": chunk,
                            "holds": sorted(state[rank][chunk])})
    if updates:
        timeline["buffers"] = {"chunks": chunks, "mode": mode, "updates": updates}
