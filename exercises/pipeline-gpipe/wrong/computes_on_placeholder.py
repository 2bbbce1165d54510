# expect: wrong_answer
# Mistake: a later stage receives into a new buffer but then applies stage_fn to its placeholder
# microbatches[i] (zeros), so every microbatch's data is lost on the way.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for mb in microbatches:
        if stage > 0:
            buf = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(buf, stage - 1)
        y = stage_fn(mb)
        if stage < n - 1:
            sends.append(dist.isend(y, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
