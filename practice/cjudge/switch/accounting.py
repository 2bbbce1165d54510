"""What the grader counts, read from the switch's trace: each graded call once, with its bytes.

| call (canonical op)          | bytes a rank sends, per call (n = group size, S = its tensor) |
|------------------------------|----------------------------------------------------------------|
| send / isend / batch (send)  | the payload                                                    |
| recv / irecv                 | 0                                                              |
| all_reduce                   | 2(n−1)/n · S (ring)                                            |
| reduce_scatter               | (n−1)/n · input                                                |
| all_gather                   | (n−1)/n · output                                               |
| all_to_all                   | the blocks for the other ranks                                 |
| broadcast                    | (n−1) · S on the root, 0 elsewhere                             |
| reduce / gather              | S off the root, 0 on it                                        |
| scatter                      | (n−1)/n · the root's input on the root, 0 elsewhere            |
| barrier                      | 0                                                              |

These are the logical volumes of the bandwidth-optimal algorithms (``primitives.bytes_sent``),
whatever the backend really puts on a wire (gloo's ``reduce_scatter_tensor`` is an all-reduce).
A payload is charged at the case's dtype (:func:`charged`): a float32 copy of float64 data, or
int8 codes of float32 values, costs what the case's dtype would, unless the exercise teaches
compression (``payload_bytes = "as-sent"``).
"""

from __future__ import annotations

from ..contract.protocol import TraceEvent
from .reduce import DTYPES
from .trace import SwitchTrace


def charged(nbytes: int, dtype: str, case_dtype: str | None) -> int:
    """The bytes a payload of ``nbytes`` of ``dtype`` is charged in a case of ``case_dtype``
    (None: as sent): a payload narrower than a floating-point case dtype, floating-point or
    integer codes of the values, is charged at the case's width; any other (integer metadata
    as wide as the case's elements, such as int64 counts) as sent."""
    if case_dtype not in DTYPES or dtype not in DTYPES:
        return nbytes
    _, size, _ = DTYPES[dtype]
    _, wide, case_kind = DTYPES[case_dtype]
    if case_kind != 2 or size >= wide:
        return nbytes
    return nbytes // size * wide


def graded_calls(trace: SwitchTrace) -> list[TraceEvent]:
    """Every request made inside a graded call, as one trace event each, in each rank's order."""
    seqs: dict[int, int] = {}
    calls: list[TraceEvent] = []
    for req in trace["requests"]:
        if not req["graded"]:
            continue
        rank = req["rank"]
        seq = seqs.get(rank, 0)
        seqs[rank] = seq + 1
        size = DTYPES[req["dtype"]][1] if req["dtype"] in DTYPES else 1
        count = req["bytes"] // size  # all_gather is about its output: every member's input
        if req["kind"] == "all_gather":
            count *= len(trace["groups"][req["group"]])
        calls.append(TraceEvent(rank=rank, seq=seq, op=req["kind"], peer=req["peer"],
                                bytes=req["sent"], count=count, dtype=req["dtype"],
                                line=req["line"], api=req["api"]))
    calls.sort(key=lambda e: (e["rank"], e["seq"]))
    return calls


def bytes_per_rank(trace: SwitchTrace) -> tuple[list[int], list[int]]:
    """Bytes each rank sent in graded calls, and how many of its calls sent: every
    point-to-point send (an empty one too: a message carries data by being there) and every
    collective that sent bytes."""
    world = trace["world_size"]
    sent, calls = [0] * world, [0] * world
    for req in trace["requests"]:
        if req["graded"] and (req["sent"] or req["kind"] == "send"):
            sent[req["rank"]] += req["sent"]
            calls[req["rank"]] += 1
    return sent, calls
