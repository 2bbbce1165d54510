# expect: wrong_answer
# Mistake: every later stage posts all its receives up front, then takes them with list.pop(),
# which returns the last one: each such stage reverses the order, and with an odd number of
# them the last stage returns the outputs backwards.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    if stage == 0:
        pending = [(mb, None) for mb in reversed(microbatches)]
    else:
        pending = []
        for mb in microbatches:
            buf = torch.empty(act_shape, dtype=mb.dtype)
            pending.append((buf, dist.irecv(buf, stage - 1)))
    outputs, sends = [], []
    while pending:
        x, req = pending.pop()
        if req is not None:
            req.wait()
        y = stage_fn(x)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
