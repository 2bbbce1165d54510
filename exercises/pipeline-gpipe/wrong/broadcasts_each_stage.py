# expect: forbidden_primitive
# Mistake: passing activations with dist.broadcast from each stage in turn: every rank takes
# part in every broadcast, and the exercise allows only point-to-point calls.
import torch
import torch.distributed as dist


def pipeline_forward(stage_fn, microbatches, act_shape):
    stage, n = dist.get_rank(), dist.get_world_size()
    outputs = []
    for mb in microbatches:
        x = mb.clone() if stage == 0 else torch.empty(act_shape, dtype=mb.dtype)
        for src in range(n - 1):
            if stage == src:
                x = stage_fn(x)
            dist.broadcast(x, src)
        if stage == n - 1:
            outputs.append(stage_fn(x))
    return outputs if stage == n - 1 else None
