"""Chunk labels and each rank's buffer filling in, from the learner's own messages.

For an exercise whose grader says what a message carries (its optional
``chunk_reader(case, inputs)`` → a function of a message's values answering (chunk,
ranks whose contributions it sums) or None; ``cjudge.kit.pieces.chunk_reader`` for sums),
each message of the timeline gets ``chunk`` and ``holds``, and the timeline gets ``buffers``.
In ``reduce`` mode (the reader's ``mode``) every rank starts holding its own contribution in
each chunk; in ``gather`` mode a rank starts with its own chunk only and a received chunk
brings its owner.

The table shows the learner's buffers, not the textbook's: receiving chunk c summing ranks R
either adds R to what the cell holds or sets the cell to R (a copy), and the learner's own code
says which. The evidence is what the rank itself sends of that chunk next, before another
receive into it: a send of exactly R was a copy (an overwrite where an add was due shows as
such), anything else (or no later send) is an add. Played step by step, that is the chapter's
animation, driven by the learner's run.
"""

from __future__ import annotations

from typing import Any

from ..contract.protocol import CaseSpec
from ..switch.trace import SwitchTrace, recorded_values
from .schema import BufferUpdate, TimelineJSON

#: one of a (rank, chunk) cell's events: (step, 0 a send / 1 a receive, the ranks it carries,
#: the receive's update index): at one step a send goes before a receive (it cannot carry it)
Event = tuple[int, int, frozenset[int], int]


def _copies(events: list[Event]) -> set[int]:
    """The updates (indices) of a cell's receives that the learner copied: the rank's next event
    on that cell is a send of exactly what it received."""
    out = set()
    for (_, kind, ranks, index), after in zip(events, events[1:], strict=False):
        if kind == 1 and after[1] == 0 and after[2] == ranks:
            out.add(index)
    return out


def _readings(timeline: TimelineJSON, trace: SwitchTrace, read: Any) -> None:
    """Add ``chunk`` and ``holds`` to every message ``read`` can read (all at once when the
    reader reads many)."""
    data = {m["id"]: recorded_values(m["data"]) for m in trace["messages"] if "data" in m}
    rows = [row for row in timeline["messages"] if data.get(row["id"])]
    many = getattr(read, "many", None)
    values = [data[row["id"]] for row in rows]
    found = many(values) if many is not None else [read(v) for v in values]
    for row, got in zip(rows, found, strict=True):
        if got is not None:
            row["chunk"], row["holds"] = got[0], list(got[1])


def label_chunks(timeline: TimelineJSON, trace: SwitchTrace, grader: Any,
                 spec: CaseSpec) -> None:
    """Add ``chunk``/``holds`` to the messages the grader can read, and ``buffers``: per step,
    what each receiver's chunks hold once that step's messages arrived (a step's messages are
    taken together, so the order they happened to match in does not matter), and ``op``: how
    the learner took them in (``add`` or ``copy``)."""
    make = getattr(grader, "chunk_reader", None)
    if make is None:
        return
    read = make(spec["params"], spec["world_size"], spec["inputs"])
    chunks, mode = getattr(read, "chunks", spec["world_size"]), getattr(read, "mode", "reduce")
    world = spec["world_size"]
    _readings(timeline, trace, read)
    arrived: dict[int, dict[tuple[int, int], set[int]]] = {}  # step -> (rank, chunk) -> ranks
    events: dict[tuple[int, int], list[Event]] = {}
    for row in timeline["messages"]:
        if "chunk" in row and row["chunk"] < chunks:
            cell = (row["dst"], row["chunk"])
            arrived.setdefault(row["step"], {}).setdefault(cell, set()).update(row["holds"])
            events.setdefault((row["src"], row["chunk"]), []).append(
                (row["step"], 0, frozenset(row["holds"]), -1))
    updates: list[BufferUpdate] = []
    for step in sorted(arrived):
        for (rank, chunk), ranks in sorted(arrived[step].items()):
            events.setdefault((rank, chunk), []).append((step, 1, frozenset(ranks), len(updates)))
            updates.append({"step": step, "rank": rank, "chunk": chunk, "holds": sorted(ranks)})
    copied = {i for cell in events.values() for i in _copies(sorted(cell))}
    state = [[{rank} if mode == "reduce" or c == rank else set() for c in range(chunks)]
             for rank in range(world)]
    for i, u in enumerate(updates):
        cells, ranks = state[u["rank"]], set(u["holds"])
        u["op"] = "copy" if i in copied else "add"  # a gather fills, a reduce adds: both "add"
        cells[u["chunk"]] = ranks if i in copied else cells[u["chunk"]] | ranks
        u["holds"] = sorted(cells[u["chunk"]])
    if updates:
        timeline["buffers"] = {"chunks": chunks, "mode": mode, "updates": updates}
