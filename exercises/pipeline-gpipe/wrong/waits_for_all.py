# expect: too_slow
# Mistake: no overlap. Each stage receives all M microbatches, runs stage_fn on all of them, and
# only then sends them on: the stages work one after another, n·M calls of stage_fn in a row.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    inputs = list(microbatches)
    if stage > 0:
        for i, mb in enumerate(microbatches):
            inputs[i] = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(inputs[i], stage - 1)
    outputs = [stage_fn(x) for x in inputs]
    if stage < n - 1:
        for y in outputs:
            dist.send(y, stage + 1)
        return None
    return outputs
