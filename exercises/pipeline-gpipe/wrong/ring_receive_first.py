# expect: deadlock
# Mistake: the pipeline treated as a ring: every stage, stage 0 too, first receives from
# (stage - 1) % n. Stage 0 waits for the last stage, which waits for the one before it, ...
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        x = torch.empty(act_shape, dtype=mb.dtype)
        dist.recv(x, (stage - 1) % n)
        if stage == 0:
            x = mb
        y = stage_fn(x)
        if stage < n - 1:
            dist.send(y, stage + 1)
        else:
            outputs.append(y)
    return outputs if stage == n - 1 else None
