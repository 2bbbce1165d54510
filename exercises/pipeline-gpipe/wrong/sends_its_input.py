# expect: wrong_answer
# Mistake: each stage sends on the activation it received, not what stage_fn made of it, so every
# stage but the last is skipped ("microbatch 0 went through stages 3 — stages 0, 1, 2 ...").
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs, sends = [], []
    for mb in microbatches:
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            sends.append(dist.isend(x, stage + 1))
        else:
            outputs.append(y)
    for req in sends:
        req.wait()
    return outputs if stage == n - 1 else None
