"""Each rank's graded point-to-point sends, in program order, with what each carried."""

from __future__ import annotations

from dataclasses import dataclass

from ...switch.trace import SwitchTrace, recorded_values


@dataclass(frozen=True)
class Send:
    """One graded point-to-point send of a rank, in its program order."""

    rank: int
    index: int  # among the rank's sends
    dst: int | None
    values: tuple[float | int, ...] | None
    line: int | None
    posted: int = -1  # switch time of the post


def sends(trace: SwitchTrace) -> list[list[Send]]:
    """Per rank, its graded sends in program order, with what each carried."""
    data = {m["send"]: recorded_values(m.get("data")) for m in trace["messages"]}
    out: list[list[Send]] = [[] for _ in range(trace["world_size"])]
    for req in sorted(trace["requests"], key=lambda r: r["posted"]):
        if req["graded"] and req["kind"] == "send":
            got = data.get(req["id"])
            rank = req["rank"]
            out[rank].append(Send(rank, len(out[rank]), req["peer"],
                                  None if got is None else tuple(got), req["line"], req["posted"]))
    return out
