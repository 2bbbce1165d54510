"""Steps a rank took: what a ``[messages]`` bound counts.

An algorithm fixes how many steps a rank takes (the ring: 2(n − 1)), not how many pieces it cuts
each step's data into: a segmented, pipelined ring sends the same bytes in more messages. So
consecutive non-empty sends of one rank to one peer are one step (its segments), while every
empty send is a step of its own (an empty message carries data by being there, so a flood of them
is bounded) and so is every collective that sent bytes. A send to another peer or a collective
between two sends to a peer starts a new step.
"""

from __future__ import annotations

from ..switch.trace import SwitchTrace


def steps_per_rank(trace: SwitchTrace) -> list[int]:
    """How many steps each rank took in its graded calls, in the order it posted them."""
    world = trace["world_size"]
    steps = [0] * world
    last_peer: list[int | None] = [None] * world  # the peer of the rank's step in progress
    calls = sorted((r for r in trace["requests"]
                    if r["graded"] and (r["sent"] or r["kind"] == "send")),
                   key=lambda r: (r["posted"], r["id"]))
    for req in calls:
        rank = req["rank"]
        segment = req["kind"] == "send" and req["sent"] > 0
        if not (segment and req["peer"] == last_peer[rank]):
            steps[rank] += 1
        last_peer[rank] = req["peer"] if segment else None
    return steps
