"""Steps a rank took: what a ``[messages]`` bound counts.

An algorithm fixes how many steps a rank takes (the ring: 2(n − 1)), not how many pieces a
pipelined implementation cuts each step's data into: a segmented ring with segments in flight
sends the same bytes in more messages. So a non-empty send posted to the same peer as the rank's
previous non-empty send, while that one is still in flight (the rank has not waited for it), is a
segment of the same step. Every other send is a step of its own: one after a wait for the
previous (segments one at a time are steps, each paying its latency), and every empty send (an
empty message carries data by being there, so a flood of them stays bounded). So is every
collective that sent bytes.
"""

from __future__ import annotations

from ..switch.trace import StepKind, SwitchTrace, programs


def steps_per_rank(trace: SwitchTrace) -> list[int]:
    """How many steps each rank took in its graded calls, in its program order."""
    counted = {r["id"]: r for r in trace["requests"]
               if r["graded"] and (r["sent"] or r["kind"] == "send")}
    steps = [0] * trace["world_size"]
    for rank, program in enumerate(programs(trace, computes=False)):
        last = None  # the rank's previous non-empty send, while it is in flight
        for step in program:
            req = counted.get(step.request)
            if req is None:
                continue
            if step.kind is StepKind.WAIT:
                last = None if last is req else last
                continue
            segment = req["kind"] == "send" and req["sent"] > 0
            if not (segment and last is not None and last["peer"] == req["peer"]):
                steps[rank] += 1
            last = req if segment else None
    return steps
