"""Reference: GPipe's forward pass. Each stage receives microbatch i, applies its function and
sends the result on without waiting for the send to finish, so it can receive microbatch i + 1
while stage s + 1 works on microbatch i."""

import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    """Stage (= rank) s: receive from s − 1 (stage 0: its own microbatches), apply stage_fn,
    send to s + 1; the last stage returns the outputs in microbatch order, the others None."""
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for mb in microbatches:
        if stage == 0:
            x = mb
        else:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))  # overlap: do not wait for it here
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
