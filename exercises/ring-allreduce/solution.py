"""Reference: ring all-reduce, n-1 reduce-scatter steps then n-1 all-gather steps.

A step's chunk travels in segments of at most ``SEGMENT`` bytes, two in flight, so that one is
on the wire while the other is summed (gloo's own ring does the same, with 1 MiB segments). A
chunk no larger than a segment travels whole: one message per step.
"""

import torch
import torch.distributed as dist

SEGMENT = 1 << 20  # bytes


def ring_all_reduce(t):
    """Sum ``t`` over all ranks, in place, passing one chunk to the right at each step."""
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))  # views: accumulating into them updates t
    per = max(1, SEGMENT // t.element_size())  # elements per segment
    spare = [torch.empty(min(per, chunks[0].numel()), dtype=t.dtype, device=t.device)
             for _ in range(2)]  # where the two segments in flight arrive before they are added
    for step in range(n - 1):  # reduce-scatter
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        ring_step(chunks[send_idx], chunks[recv_idx], right, left, per, spare)
    for step in range(n - 1):  # all-gather: received straight into place
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        ring_step(chunks[send_idx], chunks[recv_idx], right, left, per, None)


def ring_step(out, into, right, left, per, spare):
    """Send ``out`` to the right while ``into`` comes from the left, ``per`` elements a message,
    two messages each way in flight; each received segment is added to ``into`` (through the
    ``spare`` buffers) or, without them, received into it."""
    sends, recvs = out.split(per), into.split(per)
    flight = []  # (send, recv, where the segment goes, where it arrives), oldest first
    done = None
    for k in range(max(len(sends), len(recvs))):
        send = dist.isend(sends[k], right) if k < len(sends) else None
        dest = recvs[k] if k < len(recvs) else None
        buf = dest if spare is None or dest is None else spare[k % 2][:dest.numel()]
        recv = dist.irecv(buf, left) if dest is not None else None
        flight.append((send, recv, dest, buf))
        # the requests finished last time are let go of only now, once this segment is posted:
        # with gloo, freeing them sooner stalls both ranks' pipelines (up to half the speed, measured)
        done = None
        if len(flight) == 2:  # two in flight: finish the older before posting another
            done = flight.pop(0)
            finish(*done)
    for segment in flight:
        finish(*segment)


def finish(send, recv, dest, buf):
    """Wait for one segment's messages; add what arrived where it goes (unless it arrived there)."""
    for req in (send, recv):
        if req is not None:
            req.wait()
    if dest is not None and buf is not dest:
        dest += buf
