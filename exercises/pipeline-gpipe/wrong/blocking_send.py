# expect: too_slow
# Mistake: a blocking send. Stage s cannot receive microbatch i + 1 until stage s + 1 has taken
# microbatch i, so each step costs c + 2(α + A/β) instead of c + α + A/β.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        x = mb
        if stage > 0:
            x = torch.empty(act_shape, dtype=mb.dtype)
            dist.recv(x, stage - 1)
        y = stage_fn(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
        else:
            outputs.append(y)
    return outputs if stage == n - 1 else None
